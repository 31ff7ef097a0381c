import type { TCompany } from '@sms/contracts/admin/company';
import type { TCreateCompanyRequest } from '@sms/contracts/admin/create-company';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { companiesQueryKey } from './list-companies.ts';

export function useCreateCompany() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TCreateCompanyRequest) => api.post<{ company: TCompany }>('/admin/companies', body),
    onSuccess: () => readAgain(queryClient, companiesQueryKey),
  });
}
