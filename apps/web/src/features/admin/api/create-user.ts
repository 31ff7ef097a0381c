import type { TCreateUserRequest } from '@sms/contracts/admin/create-user';
import type { TUser } from '@sms/contracts/auth/user';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { companiesQueryKey } from './list-companies.ts';
import { usersQueryKey } from './list-users.ts';

export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TCreateUserRequest) => api.post<{ user: TUser }>('/admin/users', body),
    onSuccess: () => {
      void readAgain(queryClient, usersQueryKey);
      // Companies carry userCount.
      void readAgain(queryClient, companiesQueryKey);
    },
  });
}
