import type { TImportSubscribersData } from '@sms/contracts/subscribers/import-subscribers';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { subscribersQueryKey } from './list-subscribers.ts';

/** Sends the file's text as JSON { csv }, so the shared client's session refresh and errors apply. */
export function useImportSubscribers() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ serviceId, file }: { serviceId: number; file: File }) =>
      api.post<TImportSubscribersData>(`/services/${serviceId}/subscribers/import`, {
        csv: await file.text(),
      }),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: subscribersQueryKey });
      queryClient.invalidateQueries({ queryKey: ['services'] });
    },
  });
}
