import type { TDeleteServiceResponse } from '@sms/contracts/services/delete-service';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { servicesQueryKey } from './list-services.ts';

/** The console confirms first (naming subscribers and messages), so it always sends force. */
export function useDeleteService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      api.delete<TDeleteServiceResponse['data']>(`/services/${id}`, { query: { force: true } }),
    onSuccess: () => {
      readAgain(queryClient, servicesQueryKey);
      // Ended subscriptions change the subscriber list too.
      readAgain(queryClient, ['subscribers']);
    },
  });
}
