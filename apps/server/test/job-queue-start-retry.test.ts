import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { APP_ROLE } from '../src/db/database.ts';
import { QUEUE_SCHEMA } from '../src/messaging/queue/job-queue.ts';
import { createSendingCompany, numbers, subscribe } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

it('a queue whose first start failed starts on the next send: a passing fault does not refuse every later send of the process', async () => {
  const company = await createSendingCompany(ctx);
  const service = await company.service();
  await subscribe(ctx.ownerDb, service, numbers(12, 0, 3));
  const send = () =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: company.admin,
      payload: { serviceIds: [service.id], message: 'After the fault' },
    });

  // The fault: the application's role may not use the queue's schema, so this process's first
  // start of the queue (on its first send) fails for real.
  await sql.raw(`revoke usage on schema ${QUEUE_SCHEMA} from ${APP_ROLE}`).execute(ctx.ownerDb);
  const refused = await send();
  expect(refused.statusCode, refused.body).toBeGreaterThanOrEqual(500);
  expect(refused.json()).toMatchObject({ success: false });

  await sql.raw(`grant usage on schema ${QUEUE_SCHEMA} to ${APP_ROLE}`).execute(ctx.ownerDb);
  const sent = await send();
  expect(sent.statusCode, sent.body).toBe(201);
});
