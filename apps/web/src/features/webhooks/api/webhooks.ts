import type {
  TCreateWebhookRequest,
  TUpdateWebhookRequest,
  TWebhookDelivery,
  TWebhookEndpoint,
} from '@sms/contracts/webhooks/webhook';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';

/** Every webhooks query starts with this key; any change invalidates it. */
export const webhooksQueryKey = ['webhooks'] as const;

export function listWebhooksQueryOptions() {
  return queryOptions({
    queryKey: [...webhooksQueryKey, 'list'],
    queryFn: ({ signal }) => api.get<{ endpoints: TWebhookEndpoint[] }>('/webhooks', { signal }),
  });
}

export function useWebhookEndpoints(options: { enabled?: boolean } = {}) {
  return useQuery({ ...listWebhooksQueryOptions(), enabled: options.enabled ?? true });
}

export function useWebhookDeliveries(endpointId: number | null) {
  return useQuery({
    queryKey: [...webhooksQueryKey, 'deliveries', endpointId],
    queryFn: ({ signal }) =>
      api.get<{ deliveries: TWebhookDelivery[] }>(`/webhooks/${endpointId}/deliveries`, { signal }),
    enabled: endpointId !== null,
  });
}

function useWebhookMutation<TInput, TOutput>(mutationFn: (input: TInput) => Promise<TOutput>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => readAgain(queryClient, webhooksQueryKey),
  });
}

/** The answer carries the signing secret: the one time the console can show it. */
export const useCreateWebhook = () =>
  useWebhookMutation((body: TCreateWebhookRequest) =>
    api.post<{ endpoint: TWebhookEndpoint; secret: string }>('/webhooks', body),
  );

export const useUpdateWebhook = () =>
  useWebhookMutation(({ id, change }: { id: number; change: TUpdateWebhookRequest }) =>
    api.patch<{ endpoint: TWebhookEndpoint }>(`/webhooks/${id}`, change),
  );

export const useDeleteWebhook = () =>
  useWebhookMutation((id: number) => api.delete<{ id: number }>(`/webhooks/${id}`));

export const useSendTestEvent = () =>
  useWebhookMutation((id: number) => api.post<{ delivery: TWebhookDelivery }>(`/webhooks/${id}/test`));
