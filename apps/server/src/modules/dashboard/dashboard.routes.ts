import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZGetDashboardStatsResponse } from '@sms/contracts/dashboard/get-dashboard-stats';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { getDashboardStats } from './dashboard.service.ts';

export function dashboardRoutes(app: ApiInstance, deps: AppDeps) {
  app.get(
    '/dashboard/stats',
    {
      preHandler: guard(deps, ROUTE_ROLES.dashboard),
      schema: {
        tags: ['dashboard'],
        description:
          "The dashboard's figures for the caller's company (system_admin: the platform), from counters " +
          'and hourly rollups. usageStats are measured against the limits the server enforces; ' +
          'subscriber figures are null for roles without access to subscribers.',
        response: { 200: ZGetDashboardStatsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getDashboardStats(deps, contextOf(request)),
    }),
  );
}
