import type { TDeliveryReportsQuery } from '@sms/contracts/messages/delivery-reports';
import type { TListMessagesData } from '@sms/contracts/messages/list-messages';
import type { TMessage } from '@sms/contracts/messages/message';
import type { TMessageDetailsData } from '@sms/contracts/messages/message-details';
import { keepPreviousData, queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../../lib/api-client.ts';
import { messageListsQueryKey, messagesQueryKey } from './list-messages.ts';

/** How often an open details modal looks again while the message is still being delivered. */
export const DETAILS_REFRESH_MS = 3000;

/** Still moving: queued or being handed over, or handed over with recipients awaiting their final report. */
export function isStillDelivering(details: TMessageDetailsData | undefined) {
  if (!details) return false;
  const { message, summary, jobStatus } = details;
  if (message.status === 'queued' || message.status === 'processing') return true;
  if (jobStatus?.status === 'waiting' || jobStatus?.status === 'active') return true;
  return message.status === 'sent' && summary.pending + summary.sent > 0;
}

export function messageDetailsQueryOptions(id: number, query: TDeliveryReportsQuery) {
  return queryOptions({
    queryKey: [...messagesQueryKey, 'details', id, query],
    queryFn: ({ signal }) => api.get<TMessageDetailsData>(`/messages/${id}/details`, { query, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: (current) => (isStillDelivering(current.state.data) ? DETAILS_REFRESH_MS : false),
  });
}

export function useMessageDetails(id: number, query: TDeliveryReportsQuery) {
  return useQuery(messageDetailsQueryOptions(id, query));
}

/** What the details just read replaces that message's row in the lists, so the table agrees with the modal. */
export function useSyncMessageIntoLists(message: TMessage | undefined) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!message) return;
    queryClient.setQueriesData<TListMessagesData>({ queryKey: messageListsQueryKey }, (list) =>
      list?.messages.some((row) => row.id === message.id)
        ? { ...list, messages: list.messages.map((row) => (row.id === message.id ? message : row)) }
        : list,
    );
  }, [queryClient, message]);
}
