import type { TRevokeApiKeyResponse } from '@sms/contracts/api-keys/revoke-api-key';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { apiKeysQueryKey } from './list-api-keys.ts';

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post<TRevokeApiKeyResponse['data']>(`/api-keys/${id}/revoke`),
    onSuccess: () => readAgain(queryClient, apiKeysQueryKey),
  });
}
