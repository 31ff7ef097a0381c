import type { TListSubscribersData } from '@sms/contracts/subscribers/list-subscribers';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** What the screen sends: page and size always; status, phone search and (system_admin) company when set. */
export type TSubscribersQuery = {
  page: number;
  limit: number;
  status?: string;
  search?: string;
  companyId?: number;
};

export const subscribersQueryKey = ['subscribers'] as const;

export function listSubscribersQueryOptions(query: TSubscribersQuery) {
  return queryOptions({
    queryKey: [...subscribersQueryKey, 'list', query],
    queryFn: ({ signal }) => api.get<TListSubscribersData>('/subscriptions/subscribers', { query, signal }),
    placeholderData: keepPreviousData,
  });
}

export function useSubscribers(query: TSubscribersQuery) {
  return useQuery(listSubscribersQueryOptions(query));
}
