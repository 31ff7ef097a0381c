import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { usageMonthOf } from '../src/messaging/monthly-usage.ts';
import { createSendingCompany, numbers, subscribe, waitFor } from './support/messaging-factories.ts';
import { createTestContext } from './support/test-app.ts';

// Found by the soak (issue 36): sends deadlocked with other work of their company and answered 500.
// First, a bulk send and a transactional send at the same moment. The transactional send locked the month's usage row,
// then wrote its message (whose trigger updates its service's counters row); the bulk send wrote
// its message first (the service's row), then locked the usage row. Every send now takes the
// usage row before it writes a message. Here the order is forced: the usage row is held while the
// transactional send queues for it, then the bulk send; then it is let go.

const ctx = await createTestContext();
afterAll(async () => {
  await ctx.deps.messaging.queue.stopWorking(1000);
  await ctx.close();
});

async function waitersOnLocks() {
  const { rows } = await sql<{ waiting: number }>`
    select count(*)::int as waiting from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.ownerDb);
  return rows[0]?.waiting ?? 0;
}

it('a bulk send and a transactional send of one service at once both go through', async () => {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(41, 0, 3));
  const month = usageMonthOf(new Date());

  const holder = await ctx.ownerPool.connect();
  try {
    await holder.query('begin');
    await holder.query(
      `insert into company_monthly_usage as u (company_id, month, messages_used) values ($1, $2::date, 0)
       on conflict (company_id, month) do update set messages_used = u.messages_used`,
      [tenant.company.id, month],
    );
    const transactional = ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      headers: tenant.admin,
      payload: { to: numbers(42, 0, 1), message: 'Your code is 1234', serviceId: service.id },
    });
    await waitFor(waitersOnLocks, (waiting) => waiting >= 1, { what: 'the transactional send waiting' });
    const bulk = ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: tenant.admin,
      payload: { serviceIds: [service.id], message: 'Weekly news' },
    });
    await waitFor(waitersOnLocks, (waiting) => waiting >= 2, { what: 'the bulk send waiting' });
    await holder.query('commit');

    const answers = await Promise.all([transactional, bulk]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201]);
  } finally {
    await holder.query('rollback').catch(() => {});
    holder.release();
  }
});

// Second, a transactional send and the delivery-report applier (or a hand-over): the engine records
// its counts (the company's hourly activity row) and then settles its messages (their status
// counters, a row per company, status and shard); the transactional send wrote its message as
// processing (its shard's counter row) before it recorded its counts. Here a transaction plays the
// engine on every shard: it holds the activity row while the send waits for it, then settles.
it('a transactional send and the engine settling messages of its company both go through', async () => {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  const companyId = tenant.company.id;
  await sql`
    insert into message_status_counts (company_id, direction, status, shard, messages)
    select ${companyId}, 'outbound', 'processing', shard, 0 from generate_series(0, 7) shard`.execute(
    ctx.ownerDb,
  );

  const engine = await ctx.ownerPool.connect();
  try {
    await engine.query('begin');
    await engine.query(
      `insert into company_hourly_activity as a (company_id, hour, pending) values ($1, date_trunc('hour', now(), 'UTC'), 0)
       on conflict (company_id, hour) do update set pending = a.pending`,
      [companyId],
    );
    const transactional = ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      headers: tenant.admin,
      payload: { to: numbers(43, 0, 1), message: 'Your code is 5678', serviceId: service.id },
    });
    await waitFor(waitersOnLocks, (waiting) => waiting >= 1, { what: 'the transactional send waiting' });
    const settled = engine
      .query(
        `update message_status_counts set messages = messages
          where company_id = $1 and direction = 'outbound' and status = 'processing'`,
        [companyId],
      )
      .then(() => engine.query('commit'));
    const [answer] = await Promise.all([transactional, settled]);
    expect(answer.statusCode, answer.body).toBe(201);
  } finally {
    await engine.query('rollback').catch(() => {});
    engine.release();
  }
});
