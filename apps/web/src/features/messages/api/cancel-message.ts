import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { messagesQueryKey } from './list-messages.ts';

/** DELETE /messages/{id}: a scheduled message is cancelled and its queue job removed. */
export function useCancelMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<unknown>(`/messages/${id}`),
    onSuccess: () => {
      readAgain(queryClient, messagesQueryKey);
      readAgain(queryClient, ['services']);
    },
  });
}
