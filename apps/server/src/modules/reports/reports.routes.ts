import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZGetReportQuery, ZGetReportResponse } from '@sms/contracts/reports/get-report';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { getReport } from './reports.service.ts';

export function reportsRoutes(app: ApiInstance, deps: AppDeps) {
  app.get(
    '/reports',
    {
      preHandler: guard(deps, ROUTE_ROLES.reports, { apiKeyScopes: ['messages:read'] }),
      schema: {
        tags: ['reports'],
        description:
          "KPIs of the timeframe (24h, 7d or 30d; default 7d) against the span before it, and sent and received per hour (24h) or day, for the caller's company (system_admin: the platform). " +
          'Recipients count in the hour their send began; delivery rate is delivered over handed over.',
        querystring: ZGetReportQuery,
        response: { 200: ZGetReportResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getReport(deps, contextOf(request), request.query.timeframe),
    }),
  );
}
