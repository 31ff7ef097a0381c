import type { TListServicesData } from '@sms/contracts/services/list-services';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** Every services query starts with this key; a change to any service invalidates it. */
export const servicesQueryKey = ['services'] as const;

export function listServicesQueryOptions() {
  return queryOptions({
    queryKey: [...servicesQueryKey, 'list'],
    queryFn: ({ signal }) => api.get<TListServicesData>('/services', { signal }),
  });
}

export function useServices() {
  return useQuery(listServicesQueryOptions());
}
