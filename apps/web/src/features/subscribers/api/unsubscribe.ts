import type { TUnsubscribeData } from '@sms/contracts/subscribers/unsubscribe';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { subscribersQueryKey } from './list-subscribers.ts';

export function useUnsubscribe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ serviceId, phoneNumber }: { serviceId: number; phoneNumber: string }) =>
      api.delete<TUnsubscribeData>(`/services/${serviceId}/unsubscribe`, { body: { phoneNumber } }),
    onSuccess: () => {
      readAgain(queryClient, subscribersQueryKey);
      readAgain(queryClient, ['services']);
    },
  });
}
