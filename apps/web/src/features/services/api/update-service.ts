import type { TService } from '@sms/contracts/services/service';
import type { TUpdateServiceRequest } from '@sms/contracts/services/update-service';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { servicesQueryKey } from './list-services.ts';

export function useUpdateService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: TUpdateServiceRequest }) =>
      api.put<{ service: TService }>(`/services/${id}`, body),
    onSuccess: () => readAgain(queryClient, servicesQueryKey),
  });
}
