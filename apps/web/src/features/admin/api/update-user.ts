import type { TUpdateUserRequest } from '@sms/contracts/admin/update-user';
import type { TUser } from '@sms/contracts/auth/user';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { companiesQueryKey } from './list-companies.ts';
import { usersQueryKey } from './list-users.ts';

export function useUpdateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: TUpdateUserRequest }) =>
      api.put<{ user: TUser }>(`/admin/users/${id}`, body),
    onSuccess: () => {
      void readAgain(queryClient, usersQueryKey);
      void readAgain(queryClient, companiesQueryKey);
    },
  });
}
