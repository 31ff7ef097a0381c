import type { TListApiKeysResponse } from '@sms/contracts/api-keys/list-api-keys';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** Every API keys query starts with this key; creating or revoking one invalidates it. */
export const apiKeysQueryKey = ['api-keys'] as const;

export function listApiKeysQueryOptions() {
  return queryOptions({
    queryKey: [...apiKeysQueryKey, 'list'],
    queryFn: ({ signal }) => api.get<TListApiKeysResponse['data']>('/api-keys', { signal }),
  });
}

export function useApiKeys() {
  return useQuery(listApiKeysQueryOptions());
}
