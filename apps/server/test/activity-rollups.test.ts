import { DELIVERY_STATUSES, type TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { insertInbound, insertSend, insertService, insertSubscribers } from './support/activity-factories.ts';
import { createCompany } from './support/factories.ts';
import { rollupDifferences } from './support/rollup-differences.ts';
import { seededRandom } from './support/seeded-random.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The rollups (migration 0009) against a direct count, after a long random run of everything that
 * moves them: sends, status moves as the engine makes them (recipient rows and their counters in
 * one transaction), deleted messages, inbound messages, subscribers and services created, changed,
 * moved and deleted, and a whole company deleted. Half of the work runs as the application does
 * (its role, bound to the company), so row-level security applies inside the triggers.
 */
let ctx: TestContext;
let companies: number[];

beforeAll(async () => {
  ctx = await createTestContext();
  companies = [];
  for (let i = 0; i < 3; i++) companies.push((await createCompany(ctx.ownerDb)).id);
});
afterAll(() => ctx.close());

async function moveStatuses(
  db: Database,
  companyId: number,
  messageId: number,
  from: TDeliveryStatus,
  to: TDeliveryStatus,
  n: number,
  shard: number,
) {
  if (from === to) return;
  await db.transaction().execute(async (trx) => {
    await sql`select set_config('app.company_id', ${String(companyId)}, true)`.execute(trx);
    const { rows } = await sql<{ moved: number }>`
      with picked as (
        select company_id, message_id, id, created_at from delivery_reports
         where company_id = ${companyId} and message_id = ${messageId} and status = ${from}
         limit ${n} for update)
      , moved as (
        update delivery_reports d set status = ${to}, updated_at = now()
          from picked p
         where d.company_id = p.company_id and d.message_id = p.message_id and d.id = p.id and d.created_at = p.created_at
        returning 1)
      select count(*)::int as moved from moved`.execute(trx);
    const moved = rows[0].moved;
    if (moved === 0) return;
    await sql`
      insert into message_delivery_counts as c (company_id, message_id, shard, ${sql.ref(from)}, ${sql.ref(to)})
      values (${companyId}, ${messageId}, ${shard}, ${-moved}, ${moved})
      on conflict (company_id, message_id, shard) do update
        set ${sql.ref(from)} = c.${sql.ref(from)} + excluded.${sql.ref(from)},
            ${sql.ref(to)} = c.${sql.ref(to)} + excluded.${sql.ref(to)}`.execute(trx);
  });
}

const STATUSES = DELIVERY_STATUSES;

describe('activity rollups and search words', () => {
  it('equal a direct count after a random run of every change that moves them', async () => {
    const db = ctx.ownerDb;
    const next = seededRandom(20_260_315);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
    const at = () =>
      new Date(
        Date.UTC(
          2026,
          1 + Math.floor(next() * 2),
          1 + Math.floor(next() * 27),
          Math.floor(next() * 24),
          Math.floor(next() * 60),
        ),
      ).toISOString();
    const sends: { companyId: number; messageId: number }[] = [];
    const services: { id: number; companyId: number }[] = [];
    const subscribers: { id: number; companyId: number }[] = [];
    const inbound: { id: number; companyId: number }[] = [];

    for (let step = 0; step < 300; step++) {
      const companyId = pick(companies);
      const operation = pick([
        'send',
        'send',
        'move',
        'move',
        'move',
        'move',
        'deleteMessage',
        'editMessage',
        'inbound',
        'deleteInbound',
        'subscribers',
        'subscriberStatus',
        'deleteSubscriber',
        'service',
        'serviceStatus',
        'serviceMove',
        'deleteService',
      ] as const);
      // Half of the writes go through the application's role, bound to the company, as requests do.
      const asApp = next() < 0.5;
      const run = <T>(work: (db: Database) => Promise<T>) =>
        asApp
          ? inTenantTransaction(ctx.db, companyScope(companyId), (trx) => work(trx as unknown as Database))
          : work(db);
      switch (operation) {
        case 'send': {
          const statuses = Array.from({ length: 1 + Math.floor(next() * 12) }, () => pick(STATUSES));
          sends.push({ companyId, messageId: await insertSend(db, companyId, at(), statuses) });
          break;
        }
        case 'move': {
          const send = sends.length ? pick(sends) : null;
          if (send)
            await moveStatuses(
              db,
              send.companyId,
              send.messageId,
              pick(STATUSES),
              pick(STATUSES),
              1 + Math.floor(next() * 4),
              Math.floor(next() * 8),
            );
          break;
        }
        case 'deleteMessage': {
          const send = sends.length ? sends.splice(Math.floor(next() * sends.length), 1)[0] : null;
          if (send)
            await inTenantTransaction(ctx.db, companyScope(send.companyId), (trx) =>
              trx.deleteFrom('messages').where('id', '=', send.messageId).execute(),
            );
          break;
        }
        case 'editMessage': {
          // A draft's text changes (and a status update that leaves the text alone).
          const send = sends.length ? pick(sends) : null;
          if (send)
            await run((db) =>
              db
                .updateTable('messages')
                .set(
                  next() < 0.5
                    ? { content: `Edited ${pick(['storm', 'sale', 'news'])} ${step}` }
                    : { status: 'sent' },
                )
                .where('id', '=', send.messageId)
                .execute(),
            );
          break;
        }
        case 'inbound':
          inbound.push({ companyId, id: await run((db) => insertInbound(db, companyId, at())) });
          break;
        case 'deleteInbound': {
          const message = inbound.length ? inbound.splice(Math.floor(next() * inbound.length), 1)[0] : null;
          if (message) await db.deleteFrom('messages').where('id', '=', message.id).execute();
          break;
        }
        case 'subscribers': {
          const rows = await run((db) =>
            insertSubscribers(
              db,
              companyId,
              at(),
              Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
                pick(['active', 'unsubscribed', 'pending'] as const),
              ),
            ),
          );
          subscribers.push(...rows.map((row) => ({ id: row.id, companyId })));
          break;
        }
        case 'subscriberStatus': {
          const ids = subscribers
            .filter((s) => s.companyId === companyId)
            .slice(0, 1 + Math.floor(next() * 6))
            .map((s) => s.id);
          if (ids.length)
            await run((db) =>
              db
                .updateTable('subscribers')
                .set({ status: pick(['active', 'unsubscribed', 'pending']) })
                .where('id', 'in', ids)
                .execute(),
            );
          break;
        }
        case 'deleteSubscriber': {
          const subscriber = subscribers.length
            ? subscribers.splice(Math.floor(next() * subscribers.length), 1)[0]
            : null;
          if (subscriber) await db.deleteFrom('subscribers').where('id', '=', subscriber.id).execute();
          break;
        }
        case 'service':
          services.push({
            companyId,
            id: await run((db) =>
              insertService(db, companyId, at(), pick(['active', 'inactive', 'maintenance'] as const)),
            ),
          });
          break;
        case 'serviceStatus': {
          const service = services.find((s) => s.companyId === companyId);
          if (service)
            await run((db) =>
              db
                .updateTable('services')
                .set({ status: pick(['active', 'inactive', 'maintenance']) })
                .where('id', '=', service.id)
                .execute(),
            );
          break;
        }
        case 'serviceMove': {
          const service = services.length ? pick(services) : null;
          if (service) {
            service.companyId = pick(companies);
            await db
              .updateTable('services')
              .set({ company_id: service.companyId })
              .where('id', '=', service.id)
              .execute();
          }
          break;
        }
        case 'deleteService': {
          const service = services.length
            ? services.splice(Math.floor(next() * services.length), 1)[0]
            : null;
          if (service) await db.deleteFrom('services').where('id', '=', service.id).execute();
          break;
        }
      }
    }
    expect(
      await sql`select count(*)::int as n from delivery_reports`
        .execute(db)
        .then((r) => (r.rows[0] as { n: number }).n),
    ).toBeGreaterThan(100);
    expect(await rollupDifferences(db)).toEqual([]);

    // A whole company goes, and its rollups with it; the others stay exact.
    await db.deleteFrom('companies').where('id', '=', companies[2]).execute();
    expect(await rollupDifferences(db)).toEqual([]);
  });
});
