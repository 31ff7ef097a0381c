import type { TSubscribeData } from '@sms/contracts/subscribers/subscribe';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { subscribersQueryKey } from './list-subscribers.ts';

export function useSubscribe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ serviceId, phoneNumber }: { serviceId: number; phoneNumber: string }) =>
      api.post<TSubscribeData>(`/services/${serviceId}/subscribe`, { phoneNumber }),
    onSuccess: () => {
      readAgain(queryClient, subscribersQueryKey);
      readAgain(queryClient, ['services']);
    },
  });
}
