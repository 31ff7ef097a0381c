import type { TMergePreviewData } from '@sms/contracts/messages/merge-preview';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

/**
 * GET /messages/merge-fields: what the chosen services' recipients hold for the text's fields (read
 * over all of them on the server) and three of them with their fields. Keyed by the services and
 * the fields only: typing more text around the same fields asks nothing new.
 */
export function mergePreviewQueryOptions(serviceIds: readonly number[], fields: readonly string[]) {
  const ids = [...serviceIds].sort((a, b) => a - b);
  const names = [...fields].sort();
  return queryOptions({
    queryKey: ['services', 'merge-preview', ids, names],
    queryFn: ({ signal }) =>
      api.get<TMergePreviewData>('/messages/merge-fields', {
        query: { serviceIds: ids.join(','), fields: names.join(',') },
        signal,
      }),
    enabled: ids.length > 0 && names.length > 0,
    placeholderData: keepPreviousData,
  });
}

export function useMergePreview(serviceIds: readonly number[], fields: readonly string[]) {
  return useQuery(mergePreviewQueryOptions(serviceIds, fields));
}
