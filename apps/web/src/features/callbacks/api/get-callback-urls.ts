import type { TCallbackUrls } from '@sms/contracts/callbacks/callback-urls';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** Whose URLs: the signed-in company admin's own company, or a company by id (platform staff). */
export type TCallbackScope = { kind: 'my-company' } | { kind: 'company'; companyId: number };

export const callbackUrlsQueryKey = ['callbacks'] as const;

export function callbackPath(scope: TCallbackScope) {
  return scope.kind === 'my-company' ? '/callbacks/my-company' : `/callbacks/company/${scope.companyId}`;
}

export function callbackUrlsQueryOptions(scope: TCallbackScope) {
  return queryOptions({
    queryKey: [...callbackUrlsQueryKey, scope],
    queryFn: ({ signal }) => api.get<TCallbackUrls>(callbackPath(scope), { signal }),
    staleTime: 0,
  });
}

export function useCallbackUrls(scope: TCallbackScope) {
  return useQuery(callbackUrlsQueryOptions(scope));
}
