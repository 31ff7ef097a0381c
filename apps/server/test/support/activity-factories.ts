import type { TRole } from '@sms/contracts/auth/roles';
import type { TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import type { RequestContext } from '../../src/request-context.ts';
import { backfillScript } from '../../src/seed/demo.ts';

/**
 * Fixtures for the dashboard, reports and rollup tests, written with the owner's connection at
 * chosen times. Outbound sends get their recipients and then the engine's own per-send state
 * (message-sends-backfill.sql: counters, checkpoint, monthly usage), as the engine leaves them.
 */
let phoneCounter = 0;
// Spread over the number space, so no two share a long run of digits (searches by part of a number).
const nextPhone = () => `+2547${11_000_000 + ((++phoneCounter * 48_271_723) % 88_000_000)}`;

export async function insertService(
  db: Database,
  companyId: number,
  at: string,
  status: 'active' | 'inactive' | 'maintenance' = 'active',
  name = `Service ${phoneCounter++}`,
) {
  const row = await db
    .insertInto('services')
    .values({
      company_id: companyId,
      name,
      shortcode: `7${String(phoneCounter++).padStart(4, '0')}`,
      keyword: `K${phoneCounter++}`,
      status,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertSubscribers(
  db: Database,
  companyId: number,
  at: string,
  statuses: ('active' | 'unsubscribed' | 'pending')[],
) {
  const rows = statuses.map((status) => ({
    company_id: companyId,
    msisdn: nextPhone(),
    status,
    created_at: at,
  }));
  return db.insertInto('subscribers').values(rows).returning(['id', 'msisdn']).execute();
}

/** An outbound send at `at` with one recipient per status given, then the engine's state for it. */
export async function insertSend(
  db: Database,
  companyId: number,
  at: string,
  statuses: TDeliveryStatus[],
  content = 'Fixture send',
) {
  const message = await db
    .insertInto('messages')
    .values({
      company_id: companyId,
      direction: 'outbound',
      content,
      status: statuses.includes('pending') ? 'processing' : 'sent',
      recipient_count: statuses.length,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`select ensure_delivery_report_partition(${at}::timestamptz)`.execute(db);
  await sql`
    insert into delivery_reports (company_id, created_at, message_id, recipient_phone, status, parts)
    select ${companyId}, ${at}::timestamptz, ${message.id}, '+2547' || lpad((80000000 + i)::text, 8, '0'), s, 1
      from unnest(${statuses}::text[]) with ordinality as u(s, i)`.execute(db);
  await sql.raw(await backfillScript()).execute(db);
  return message.id;
}

export async function insertInbound(db: Database, companyId: number, at: string, content = 'HELP') {
  const row = await db
    .insertInto('messages')
    .values({
      company_id: companyId,
      direction: 'inbound',
      content,
      msisdn: nextPhone(),
      status: 'received',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * One company's traffic that the dashboard and reports tests count by hand (seen on 2026-03-15 at
 * 12:30 UTC): sends on February 5th (4 delivered, 1 failed, 1 rejected), February 25th (3 delivered),
 * March 14th 08:00 (2 delivered, 1 sent, 1 submitted, 1 pending) and March 15th 11:10 (1 delivered,
 * 1 expired); inbound messages on February 10th, March 10th and March 15th at 10:00 ("NEWS").
 */
export async function insertFixtureTraffic(db: Database, companyId: number) {
  await insertSend(db, companyId, '2026-02-05T10:00:00Z', [
    'delivered',
    'delivered',
    'delivered',
    'delivered',
    'failed',
    'rejected',
  ]);
  await insertSend(db, companyId, '2026-02-25T09:00:00Z', ['delivered', 'delivered', 'delivered']);
  await insertSend(
    db,
    companyId,
    '2026-03-14T08:00:00Z',
    ['delivered', 'delivered', 'sent', 'submitted', 'pending'],
    'Weekend deals',
  );
  await insertSend(db, companyId, '2026-03-15T11:10:00Z', ['delivered', 'expired'], 'Flash sale today');
  await insertInbound(db, companyId, '2026-03-15T10:00:00Z', 'NEWS');
  await insertInbound(db, companyId, '2026-03-10T09:00:00Z');
  await insertInbound(db, companyId, '2026-02-10T09:00:00Z');
}

/** What the engine counts for the monthly limit, set outright for a month (YYYY-MM-01). */
export async function setMonthlyUsage(db: Database, companyId: number, month: string, used: number) {
  await sql`
    insert into company_monthly_usage (company_id, month, messages_used) values (${companyId}, ${month}::date, ${used})
    on conflict (company_id, month) do update set messages_used = excluded.messages_used`.execute(db);
}

/** A request context as the authenticate plugin builds it, for calling services at a chosen time. */
export function contextFor(user: { id: number; role: TRole; companyId: number | null }): RequestContext {
  return {
    actor: {
      userId: user.id,
      role: user.role,
      companyId: user.companyId,
      name: 'Fixture User',
      email: 'fixture@user.test',
      sessionId: 'fixture',
    },
    ip: '127.0.0.1',
    userAgent: 'vitest',
    readOnly: false,
  };
}
