import type { TCompany } from '@sms/contracts/admin/company';
import type { TUpdateCompanyRequest } from '@sms/contracts/admin/update-company';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { companiesQueryKey } from './list-companies.ts';
import { usersQueryKey } from './list-users.ts';

export function useUpdateCompany() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: TUpdateCompanyRequest }) =>
      api.put<{ company: TCompany }>(`/admin/companies/${id}`, body),
    onSuccess: () => {
      void readAgain(queryClient, companiesQueryKey);
      // Users show their company's name.
      void readAgain(queryClient, usersQueryKey);
    },
  });
}
