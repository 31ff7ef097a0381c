import type { TAuditEntry } from '@sms/contracts/audit/audit-log';
import { totalPages } from '@sms/contracts/common/pagination';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { AuditLogRow } from '../../db/schema.ts';
import type { RequestContext } from '../../request-context.ts';
import { type AuditFilter, listAuditLogs } from './audit.repository.ts';

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

/** A page of the audit trail, newest first. */
export async function listAuditEntries(
  deps: AppDeps,
  ctx: RequestContext,
  query: AuditFilter & { page: number; limit: number },
) {
  const { page, limit, ...filter } = query;
  const { rows, totalItems } = await inActorTransaction(deps.db, ctx, (trx) =>
    listAuditLogs(trx, filter, { limit, offset: (page - 1) * limit }),
  );
  return {
    auditLogs: rows.map(presentAuditEntry),
    currentPage: page,
    totalPages: totalPages(totalItems, limit),
    totalItems,
  };
}
