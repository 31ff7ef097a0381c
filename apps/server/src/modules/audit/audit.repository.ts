import type { Expression, ExpressionBuilder, Insertable, SqlBool } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { AuditLogsTable, DB } from '../../db/schema.ts';

export type AuditFilter = { from?: Date; to?: Date; action?: string; entity?: string };

function auditWhere(filter: AuditFilter) {
  return (eb: ExpressionBuilder<DB, 'audit_logs'>) => {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.from) conditions.push(eb('created_at', '>=', filter.from));
    if (filter.to) conditions.push(eb('created_at', '<=', filter.to));
    if (filter.action) conditions.push(eb('action', '=', filter.action));
    if (filter.entity) conditions.push(eb('entity', '=', filter.entity));
    return eb.and(conditions);
  };
}

/** Newest first, on audit_logs_created_idx. */
export async function listAuditLogs(
  db: Executor,
  filter: AuditFilter,
  page: { limit: number; offset: number },
) {
  const rows = await db
    .selectFrom('audit_logs')
    .selectAll()
    .where(auditWhere(filter))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const total = await db
    .selectFrom('audit_logs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(auditWhere(filter))
    .executeTakeFirstOrThrow();
  return { rows, totalItems: Number(total.n) };
}

export async function insertAuditLog(db: Executor, entry: Insertable<AuditLogsTable>) {
  await db.insertInto('audit_logs').values(entry).execute();
}
