import { ZListAuditLogsQuery, ZListAuditLogsResponse } from '@sms/contracts/audit/list-audit-logs';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { listAuditEntries } from './audit.service.ts';

export function auditRoutes(app: ApiInstance, deps: AppDeps) {
  app.get(
    '/admin/audit-logs',
    {
      preHandler: guard(deps, 'system_admin'),
      schema: {
        tags: ['audit'],
        description:
          'The audit trail, newest first, 50 a page by default. from/to take YYYY-MM-DD (a bare `to` ' +
          'includes that whole day, UTC) or an ISO date-time.',
        querystring: ZListAuditLogsQuery,
        response: { 200: ZListAuditLogsResponse },
      },
    },
    async (request) => {
      const data = await listAuditEntries(deps, contextOf(request), request.query);
      return { success: true as const, data };
    },
  );
}
