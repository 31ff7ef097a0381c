import type { TAuditAction, TAuditEntity } from '@sms/contracts/audit/audit-log';
import type { Executor } from '../../db/database.ts';
import { companyScope, platformScope, type TenantScope } from '../../db/tenant-scope.ts';
import { insertAuditLog } from './audit.repository.ts';

export type AuditEvent = {
  action: TAuditAction;
  entity: TAuditEntity;
  entityId?: string | number | null;
  companyId?: number | null;
  details?: Record<string, unknown>;
};

export type AuditSource = {
  user: { id: number; name: string; email: string; companyId: number | null } | null;
  ip: string | null;
  userAgent: string | null;
};

/**
 * The one way to write the audit trail. Call it inside the mutation's transaction so the entry
 * and the change commit together; later hooks (outbound webhooks) attach here.
 */
export async function recordAudit(db: Executor, source: AuditSource, event: AuditEvent) {
  await insertAuditLog(db, {
    company_id: event.companyId !== undefined ? event.companyId : (source.user?.companyId ?? null),
    user_id: source.user?.id ?? null,
    user_name: source.user?.name ?? null,
    user_email: source.user?.email ?? null,
    // A system admin (the only users without a company) acting on a company's data.
    by_platform_staff: source.user !== null && source.user.companyId === null,
    action: event.action,
    entity: event.entity,
    entity_id: event.entityId == null ? null : String(event.entityId),
    details: JSON.stringify(event.details ?? {}),
    ip_address: source.ip,
    user_agent: source.userAgent?.slice(0, 500) ?? null,
  });
}

/** The audit source of an authenticated request. */
export function auditSourceOf(ctx: {
  actor: { userId: number; name: string; email: string; companyId: number | null };
  ip: string;
  userAgent: string | null;
}): AuditSource {
  const { actor } = ctx;
  return {
    user: { id: actor.userId, name: actor.name, email: actor.email, companyId: actor.companyId },
    ip: ctx.ip,
    userAgent: ctx.userAgent,
  };
}

/** The scope of an audit source's user: their company, or the platform for a system admin (the only users without one). */
export function scopeOfAuditUser(user: NonNullable<AuditSource['user']>): TenantScope {
  return user.companyId === null ? platformScope : companyScope(user.companyId);
}
