import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { companiesQueryKey } from './list-companies.ts';
import { usersQueryKey } from './list-users.ts';

export function useDeleteUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ deleted: true }>(`/admin/users/${id}`),
    onSuccess: () => {
      void readAgain(queryClient, usersQueryKey);
      void readAgain(queryClient, companiesQueryKey);
    },
  });
}
