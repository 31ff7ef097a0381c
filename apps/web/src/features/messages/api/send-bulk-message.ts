import type { TListMessagesData } from '@sms/contracts/messages/list-messages';
import type {
  TSendBulkMessageData,
  TSendBulkMessageRequest,
} from '@sms/contracts/messages/send-bulk-message';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { messageListsQueryKey, messagesQueryKey } from './list-messages.ts';

export type TSendBulkMessageVariables = {
  request: TSendBulkMessageRequest;
  /** The same key for a retry of the same submission: the server answers it once. */
  idempotencyKey: string;
};

export function useSendBulkMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ request, idempotencyKey }: TSendBulkMessageVariables) =>
      api.post<TSendBulkMessageData>('/messages/bulk/send', request, {
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
    onSuccess: (data, { request }) => {
      // Spec section 4: the new row goes to the top at once, as sent (or scheduled); the refetch
      // below then shows the status the server really has.
      const row = {
        ...data.message,
        status: request.scheduleType === 'scheduled' ? 'scheduled' : 'sent',
      } as const;
      queryClient.setQueriesData<TListMessagesData>({ queryKey: messageListsQueryKey }, (list) =>
        list && list.currentPage === 1
          ? { ...list, messages: [row, ...list.messages.filter((message) => message.id !== row.id)] }
          : list,
      );
      readAgain(queryClient, messagesQueryKey);
      // A service's message count and last activity changed.
      readAgain(queryClient, ['services']);
    },
  });
}
