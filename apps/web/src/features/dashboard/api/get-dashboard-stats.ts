import type { TDashboardStats } from '@sms/contracts/dashboard/dashboard-stats';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const dashboardQueryKey = ['dashboard'] as const;

export function dashboardStatsQueryOptions() {
  return queryOptions({
    queryKey: [...dashboardQueryKey, 'stats'],
    queryFn: ({ signal }) => api.get<TDashboardStats>('/dashboard/stats', { signal }),
    // Figures move as messages go out; a minute-old dashboard is fine, a stale one all day is not.
    staleTime: 30_000,
    refetchInterval: 60_000,
  });
}

export function useDashboardStats() {
  return useQuery(dashboardStatsQueryOptions());
}
