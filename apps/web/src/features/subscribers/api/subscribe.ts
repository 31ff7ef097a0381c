import type { TSubscribeData } from '@sms/contracts/subscribers/subscribe';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { subscribersQueryKey } from './list-subscribers.ts';

export function useSubscribe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ serviceId, phoneNumber }: { serviceId: number; phoneNumber: string }) =>
      api.post<TSubscribeData>(`/services/${serviceId}/subscribe`, { phoneNumber }),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: subscribersQueryKey });
      queryClient.invalidateQueries({ queryKey: ['services'] });
    },
  });
}
