import type { TCreateApiKeyRequest, TCreateApiKeyResponse } from '@sms/contracts/api-keys/create-api-key';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { apiKeysQueryKey } from './list-api-keys.ts';

/** The answer carries the key itself: the one time the console can show it. */
export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TCreateApiKeyRequest) => api.post<TCreateApiKeyResponse['data']>('/api-keys', body),
    onSuccess: () => readAgain(queryClient, apiKeysQueryKey),
  });
}
