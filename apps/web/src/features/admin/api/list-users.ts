import type { TListUsersData, TListUsersQuery } from '@sms/contracts/admin/list-users';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const usersQueryKey = ['admin', 'users'] as const;

export function listUsersQueryOptions(query: TListUsersQuery) {
  return queryOptions({
    queryKey: [...usersQueryKey, query],
    queryFn: ({ signal }) => api.get<TListUsersData>('/admin/users', { query, signal }),
    placeholderData: keepPreviousData,
  });
}

export function useUsers(query: TListUsersQuery) {
  return useQuery(listUsersQueryOptions(query));
}
