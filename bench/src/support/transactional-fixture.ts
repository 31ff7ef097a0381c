import { sql } from 'kysely';
import type { Database, DatabaseHandle } from '../../../apps/server/src/db/database.ts';
import { hashPassword } from '../../../apps/server/src/modules/auth/passwords.ts';
import { regenerateCallbackTokens } from '../../../apps/server/src/modules/callbacks/callback-tokens.ts';
import { BULK_SEND_PASSWORD } from './bulk-send-fixture.ts';
import { BENCH_ENCRYPTION_KEY } from './server-process.ts';

/** A second company that sends only transactional texts: its admin and one service. */
export async function prepareTransactionalCompany(db: Database) {
  const company = await db
    .insertInto('companies')
    .values({
      name: 'Bench OTP Co',
      email: 'otp@co.test',
      phone_number: '+254700000001',
      address: 'Bench Street 2',
      messages_limit: 1_000_000,
      subscribers_limit: 1_000,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await regenerateCallbackTokens(db, company.id, BENCH_ENCRYPTION_KEY);
  const adminEmail = 'otp-admin@co.test';
  await db
    .insertInto('users')
    .values({
      name: 'OTP Admin',
      email: adminEmail,
      password_hash: await hashPassword(BULK_SEND_PASSWORD),
      role: 'company_admin',
      company_id: company.id,
    })
    .execute();
  const service = await db
    .insertInto('services')
    .values({ company_id: company.id, name: 'OTP', shortcode: '22551', keyword: 'OTP' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { companyId: company.id, serviceId: service.id, adminEmail };
}

/** POST /messages with `to`: the message id, or an error with the answer. */
export async function sendTransactional(apiUrl: string, token: string, serviceId: number, to: string) {
  const response = await fetch(`${apiUrl}/api/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ to, message: 'Your code is 246810', serviceId }),
  });
  const body = (await response.json()) as { data: { message: { id: number } } };
  if (response.status !== 201)
    throw new Error(`transactional send failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data.message.id;
}

/** A send's recipients not yet handed over (its counters), or null before it has any. */
export async function pendingOf(owner: DatabaseHandle, messageId: number) {
  const { rows } = await sql<{ pending: number; recipients: number; state: string }>`
    select coalesce(t.pending, 0)::int as pending, s.recipients, s.state
      from message_sends s
      left join message_delivery_totals t on t.company_id = s.company_id and t.message_id = s.message_id
     where s.message_id = ${messageId}`.execute(owner.db);
  return rows[0] ?? null;
}

/** Polls (every 10 ms) until the send has nobody pending; ms since `startedAt`. */
export async function waitUntilHandedOver(
  owner: DatabaseHandle,
  messageId: number,
  startedAt: number,
  timeoutMs: number,
) {
  while (performance.now() - startedAt < timeoutMs) {
    const send = await pendingOf(owner, messageId);
    if (send && send.state !== 'fanout' && send.state !== 'waiting' && send.pending === 0)
      return performance.now() - startedAt;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`send ${messageId} was not handed over within ${timeoutMs / 1000} s`);
}
