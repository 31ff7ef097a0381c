import type { TListCompaniesData } from '@sms/contracts/admin/list-companies';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export type TCompanyOption = { id: number; name: string };

/** Outside the 'subscribers' key: subscribing or importing must not reload the companies. */
export const companyOptionsQueryKey = ['company-options'] as const;

/** The company filter of the subscriber list (system_admin): up to 100 companies, by name. */
export function listCompanyOptionsQueryOptions() {
  return queryOptions({
    queryKey: companyOptionsQueryKey,
    queryFn: async ({ signal }): Promise<TCompanyOption[]> => {
      const data = await api.get<TListCompaniesData>('/admin/companies', { query: { limit: 100 }, signal });
      return data.companies
        .map(({ id, name }) => ({ id, name }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    staleTime: 5 * 60_000,
  });
}

export function useCompanyOptions(enabled: boolean) {
  return useQuery({ ...listCompanyOptionsQueryOptions(), enabled });
}
