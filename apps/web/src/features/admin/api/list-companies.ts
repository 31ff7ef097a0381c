import type { TListCompaniesData, TListCompaniesQuery } from '@sms/contracts/admin/list-companies';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const companiesQueryKey = ['admin', 'companies'] as const;

export function listCompaniesQueryOptions(query: TListCompaniesQuery) {
  return queryOptions({
    queryKey: [...companiesQueryKey, query],
    queryFn: ({ signal }) => api.get<TListCompaniesData>('/admin/companies', { query, signal }),
    placeholderData: keepPreviousData,
  });
}

export function useCompanies(query: TListCompaniesQuery) {
  return useQuery(listCompaniesQueryOptions(query));
}
