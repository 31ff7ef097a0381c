import { USER_FORM_COMPANY_LIMIT } from '@sms/contracts/admin/admin-user';
import type { TListCompaniesData } from '@sms/contracts/admin/list-companies';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from './api-client.ts';

export type TCompanyOption = { id: number; name: string };

/**
 * The companies a system admin picks from in a form or filter: up to 100, by name (spec: the
 * user form loads up to 100). The key sits under the admin's companies key, so creating,
 * editing or deleting a company refreshes every such select.
 */
export function companyOptionsQueryOptions() {
  return queryOptions({
    queryKey: ['admin', 'companies', 'options'],
    queryFn: async ({ signal }): Promise<TCompanyOption[]> => {
      const data = await api.get<TListCompaniesData>('/admin/companies', {
        query: { limit: USER_FORM_COMPANY_LIMIT },
        signal,
      });
      return data.companies
        .map(({ id, name }) => ({ id, name }))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    staleTime: 5 * 60_000,
  });
}

export function useCompanyOptions(enabled = true) {
  return useQuery({ ...companyOptionsQueryOptions(), enabled });
}
