import type { TRecipientPreviewData } from '@sms/contracts/messages/manage-message';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/** GET /messages/subscribers: how many distinct phone numbers a send to these services reaches. */
export function previewRecipientsQueryOptions(serviceIds: readonly number[]) {
  const ids = [...serviceIds].sort((a, b) => a - b);
  return queryOptions({
    queryKey: ['services', 'recipient-preview', ids],
    queryFn: ({ signal }) =>
      api.get<TRecipientPreviewData>('/messages/subscribers', {
        query: { serviceIds: ids.join(',') },
        signal,
      }),
    enabled: ids.length > 0,
    placeholderData: keepPreviousData,
  });
}

export function useRecipientPreview(serviceIds: readonly number[]) {
  return useQuery(previewRecipientsQueryOptions(serviceIds));
}
