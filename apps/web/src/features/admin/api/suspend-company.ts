import type { TCompany } from '@sms/contracts/admin/company';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { companiesQueryKey } from './list-companies.ts';

export function useSuspendCompany() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.put<{ company: TCompany }>(`/admin/companies/${id}/suspend`),
    onSettled: () => readAgain(queryClient, companiesQueryKey),
  });
}
