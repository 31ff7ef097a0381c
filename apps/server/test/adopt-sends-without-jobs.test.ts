import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adoptSendsWithoutJobs } from '../src/messaging/maintenance.ts';
import { createSendingCompany, sendState } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * Sends loaded without a queue job (the demo seed, an import, a lost job) get one from the upkeep:
 * a queued one now, a scheduled one at its time, each with a waiting send row; asked again, none
 * gets a second job.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

it('gives every queued or scheduled send without a job exactly one, at its time', async () => {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  const at = new Date(Date.now() + 3600_000);
  const insert = (status: string, scheduledAt: Date | null) =>
    sql<{ id: number }>`
      insert into messages (company_id, service_id, service_ids, content, status, scheduled_at)
      values (${tenant.company.id}, ${service.id}, ${[service.id]}::bigint[], 'seeded', ${status}, ${scheduledAt})
      returning id`
      .execute(ctx.ownerDb)
      .then(({ rows }) => rows[0].id);
  const queued = await insert('queued', null);
  const scheduled = await insert('scheduled', at);

  expect(await adoptSendsWithoutJobs(ctx.jobDb, ctx.deps.messaging.queue)).toBe(2);
  const { rows: jobs } = await sql<{ id: number; state: string; start_after: Date }>`
    select m.id, j.state, j.start_after from messages m join pgboss.job j on j.id::text = m.queue_job_id
     where m.company_id = ${tenant.company.id} and j.name = 'send-start' order by m.id`.execute(ctx.ownerDb);
  expect(jobs.map((job) => job.id)).toEqual([queued, scheduled]);
  expect(jobs[1].start_after.getTime()).toBe(at.getTime());
  expect(await sendState(ctx.ownerDb, queued)).toBe('waiting');
  expect(await sendState(ctx.ownerDb, scheduled)).toBe('waiting');

  expect(await adoptSendsWithoutJobs(ctx.jobDb, ctx.deps.messaging.queue)).toBe(0);
});
