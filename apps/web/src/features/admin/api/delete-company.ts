import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { companiesQueryKey } from './list-companies.ts';
import { usersQueryKey } from './list-users.ts';

/** cascade: the admin confirmed deleting the company's users, services, subscribers and messages too. */
export function useDeleteCompany() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, cascade }: { id: number; cascade: boolean }) =>
      api.delete<{ deleted: true }>(`/admin/companies/${id}`, {
        query: cascade ? { cascade: 'true' } : undefined,
      }),
    onSuccess: () => {
      void readAgain(queryClient, companiesQueryKey);
      void readAgain(queryClient, usersQueryKey);
    },
  });
}
