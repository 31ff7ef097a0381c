import type {
  TCreateTemplateRequest,
  TListTemplatesData,
  TTemplate,
  TUpdateTemplateRequest,
} from '@sms/contracts/templates/template';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { readAgain } from '../../../lib/query-client.ts';

/** Every templates query starts with this key; any change invalidates it. */
export const templatesQueryKey = ['templates'] as const;

export function listTemplatesQueryOptions() {
  return queryOptions({
    queryKey: [...templatesQueryKey, 'list'],
    queryFn: ({ signal }) => api.get<TListTemplatesData>('/templates', { signal }),
  });
}

export function useTemplates(options: { enabled?: boolean } = {}) {
  return useQuery({ ...listTemplatesQueryOptions(), enabled: options.enabled ?? true });
}

function useTemplateMutation<TInput, TOutput>(mutationFn: (input: TInput) => Promise<TOutput>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => readAgain(queryClient, templatesQueryKey),
  });
}

export const useCreateTemplate = () =>
  useTemplateMutation((body: TCreateTemplateRequest) =>
    api.post<{ template: TTemplate }>('/templates', body),
  );

export const useUpdateTemplate = () =>
  useTemplateMutation(({ id, change }: { id: number; change: TUpdateTemplateRequest }) =>
    api.put<{ template: TTemplate }>(`/templates/${id}`, change),
  );

export const useDeleteTemplate = () =>
  useTemplateMutation((id: number) => api.delete<{ id: number }>(`/templates/${id}`));
