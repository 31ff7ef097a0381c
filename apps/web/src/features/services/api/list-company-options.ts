import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

type TCompanyOption = { id: number; name: string };

/** The company select of the service form (system_admin): up to 100 companies, as the spec's user form. */
export function listCompanyOptionsQueryOptions() {
  return queryOptions({
    queryKey: ['services', 'company-options'],
    queryFn: async ({ signal }) => {
      const data = await api.get<{ companies: TCompanyOption[] }>('/admin/companies', {
        query: { limit: 100 },
        signal,
      });
      return data.companies.map(({ id, name }) => ({ id, name }));
    },
    staleTime: 5 * 60_000,
  });
}

export function useCompanyOptions(enabled: boolean) {
  return useQuery({ ...listCompanyOptionsQueryOptions(), enabled });
}
