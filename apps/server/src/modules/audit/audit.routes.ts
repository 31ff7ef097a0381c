import type { TAuditEntry } from '@sms/contracts/audit/audit-log';
import { ZListAuditLogsQuery, ZListAuditLogsResponse } from '@sms/contracts/audit/list-audit-logs';
import { totalPages } from '@sms/contracts/common/pagination';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { AuditLogRow } from '../../db/schema.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { listAuditLogs } from './audit.repository.ts';

function presentAuditEntry(row: AuditLogRow): TAuditEntry {
  return {
    id: row.id,
    timestamp: row.created_at.toISOString(),
    action: row.action,
    entity: row.entity,
    entityId: row.entity_id,
    userId: row.user_id,
    userName: row.user_name,
    userEmail: row.user_email,
    companyId: row.company_id,
    details: row.details ?? {},
    ipAddress: row.ip_address,
    userAgent: row.user_agent,
  };
}

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
      const { page, limit, ...filter } = request.query;
      const { rows, totalItems } = await inActorTransaction(deps.db, contextOf(request), (trx) =>
        listAuditLogs(trx, filter, { limit, offset: (page - 1) * limit }),
      );
      return {
        success: true as const,
        data: {
          auditLogs: rows.map(presentAuditEntry),
          currentPage: page,
          totalPages: totalPages(totalItems, limit),
          totalItems,
        },
      };
    },
  );
}
