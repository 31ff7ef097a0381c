import type { TListServicesData } from '@sms/contracts/services/list-services';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/**
 * The services shown beside subscribers (names of active_services, the service selects). Under the
 * 'services' key so that any service change refreshes it as well.
 */
export function listServiceOptionsQueryOptions() {
  return queryOptions({
    queryKey: ['services', 'options'],
    queryFn: ({ signal }) => api.get<TListServicesData>('/services', { signal }),
  });
}

export function useServiceOptions() {
  return useQuery(listServiceOptionsQueryOptions());
}
