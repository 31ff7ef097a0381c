import type { TListServicesData } from '@sms/contracts/services/list-services';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/**
 * The services a message can go to, with their active subscriber counts. Under the 'services' key
 * so any service change refreshes it; read afresh each time the modal opens, as counts move.
 */
export function listSendServicesQueryOptions() {
  return queryOptions({
    queryKey: ['services', 'send-options'],
    queryFn: ({ signal }) => api.get<TListServicesData>('/services', { signal }),
  });
}

export function useSendServices() {
  return useQuery({ ...listSendServicesQueryOptions(), refetchOnMount: 'always' });
}
