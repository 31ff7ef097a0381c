import type { TCreateServiceRequest } from '@sms/contracts/services/create-service';
import type { TService } from '@sms/contracts/services/service';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';
import { servicesQueryKey } from './list-services.ts';

export function useCreateService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TCreateServiceRequest) => api.post<{ service: TService }>('/services', body),
    onSuccess: () => readAgain(queryClient, servicesQueryKey),
  });
}
