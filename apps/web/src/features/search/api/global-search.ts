import type { TGlobalSearchData } from '@sms/contracts/search/global-search';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const searchQueryKey = ['search'] as const;

export function globalSearchQueryOptions(q: string) {
  return queryOptions({
    queryKey: [...searchQueryKey, q],
    queryFn: ({ signal }) => api.get<TGlobalSearchData>('/search', { query: { q }, signal }),
    staleTime: 15_000,
  });
}

export function useGlobalSearch(q: string, enabled: boolean) {
  return useQuery({ ...globalSearchQueryOptions(q), enabled, placeholderData: keepPreviousData });
}
