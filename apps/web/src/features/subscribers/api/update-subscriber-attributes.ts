import type { TSubscriber } from '@sms/contracts/subscribers/subscriber';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { subscribersQueryKey } from './list-subscribers.ts';

/** PUT /subscriptions/subscribers/{id}/attributes: every field the subscriber keeps. */
export function useUpdateSubscriberAttributes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, attributes }: { id: number; attributes: Record<string, string> }) =>
      api.put<{ subscriber: TSubscriber; message: string }>(`/subscriptions/subscribers/${id}/attributes`, {
        attributes,
      }),
    onSuccess: () => readAgain(queryClient, subscribersQueryKey),
  });
}
