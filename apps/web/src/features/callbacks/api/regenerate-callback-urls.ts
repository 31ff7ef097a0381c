import type { TCallbackUrls } from '@sms/contracts/callbacks/callback-urls';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { callbackPath, callbackUrlsQueryOptions, type TCallbackScope } from './get-callback-urls.ts';

export function useRegenerateCallbackUrls(scope: TCallbackScope) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<TCallbackUrls>(`${callbackPath(scope)}/regenerate`),
    // The answer holds the new URLs: show them at once, the old ones no longer work.
    onSuccess: (urls) => queryClient.setQueryData(callbackUrlsQueryOptions(scope).queryKey, urls),
  });
}
