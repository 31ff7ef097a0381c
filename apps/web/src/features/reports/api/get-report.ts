import type { TReport, TReportTimeframe } from '@sms/contracts/reports/report';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const reportsQueryKey = ['reports'] as const;

export function reportQueryOptions(timeframe: TReportTimeframe) {
  return queryOptions({
    queryKey: [...reportsQueryKey, timeframe],
    queryFn: ({ signal }) => api.get<TReport>('/reports', { query: { timeframe }, signal }),
  });
}

export function useReport(timeframe: TReportTimeframe) {
  return useQuery({ ...reportQueryOptions(timeframe), placeholderData: keepPreviousData });
}
