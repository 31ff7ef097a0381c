import type { TListAuditLogsData, TListAuditLogsQuery } from '@sms/contracts/audit/list-audit-logs';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const auditLogsQueryKey = ['audit-logs'] as const;

export function listAuditLogsQueryOptions(query: TListAuditLogsQuery) {
  return queryOptions({
    queryKey: [...auditLogsQueryKey, query],
    queryFn: ({ signal }) => api.get<TListAuditLogsData>('/admin/audit-logs', { query, signal }),
    placeholderData: keepPreviousData,
    // The trail grows with every action; show what just happened.
    staleTime: 0,
  });
}

export function useAuditLogs(query: TListAuditLogsQuery) {
  return useQuery(listAuditLogsQueryOptions(query));
}
