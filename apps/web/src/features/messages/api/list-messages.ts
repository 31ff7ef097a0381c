import type { TListMessagesData, TListMessagesQuery } from '@sms/contracts/messages/list-messages';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** Every messages query starts with this key; a send or cancel invalidates it. */
export const messagesQueryKey = ['messages'] as const;
export const messageListsQueryKey = [...messagesQueryKey, 'list'] as const;

/** While a message on the page is still going out, its status changes by itself: look again. */
const IN_FLIGHT_REFRESH_MS = 5000;
const IN_FLIGHT_STATUSES = new Set(['queued', 'processing']);

export function listMessagesQueryOptions(query: TListMessagesQuery) {
  return queryOptions({
    queryKey: [...messageListsQueryKey, query],
    queryFn: ({ signal }) => api.get<TListMessagesData>('/messages', { query, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: (current) =>
      current.state.data?.messages.some((message) => IN_FLIGHT_STATUSES.has(message.status))
        ? IN_FLIGHT_REFRESH_MS
        : false,
  });
}

export function useMessages(query: TListMessagesQuery) {
  return useQuery(listMessagesQueryOptions(query));
}
