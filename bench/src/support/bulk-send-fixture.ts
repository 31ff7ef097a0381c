import { sql } from 'kysely';
import { connectDatabase, type Database, type DatabaseHandle } from '../../../apps/server/src/db/database.ts';
import { hashPassword } from '../../../apps/server/src/modules/auth/passwords.ts';
import { regenerateCallbackTokens } from '../../../apps/server/src/modules/callbacks/callback-tokens.ts';
import { BENCH_ENCRYPTION_KEY } from './server-process.ts';

export const BULK_SEND_PASSWORD = 'Password123!';

export type BulkSendFixture = {
  owner: DatabaseHandle;
  companyId: number;
  serviceIds: number[];
  adminEmail: string;
  /** Distinct subscribers the send reaches (the services overlap: fewer than the subscriptions). */
  recipients: number;
  subscriptions: number;
};

/** A company with room for any bench (its own limits over its plan's) and its callback tokens. */
export async function createBenchCompany(db: Database) {
  const company = await db
    .insertInto('companies')
    .values({
      name: 'Bench Co',
      email: 'bench@co.test',
      phone_number: '+254700000000',
      address: 'Bench Street 1',
      messages_limit: 1_000_000_000,
      subscribers_limit: 1_000_000_000,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const tokens = await regenerateCallbackTokens(db, company.id, BENCH_ENCRYPTION_KEY);
  return { id: company.id, tokens };
}

/**
 * A company with `recipients` active subscribers over three overlapping services (every one on A
 * or B, half on both, every third also on C: about 1.8 subscriptions each, so the fan-out has
 * duplicates to drop), its callback tokens and a company admin. Written set-based as the owner.
 */
export async function prepareBulkSend(
  databaseUrl: string,
  recipients: number,
  options: { firstNames?: readonly string[] } = {},
): Promise<BulkSendFixture> {
  const owner = connectDatabase(databaseUrl, 4);
  const db = owner.db;
  const company = await createBenchCompany(db);
  const adminEmail = 'bench-admin@co.test';
  await db
    .insertInto('users')
    .values({
      name: 'Bench Admin',
      email: adminEmail,
      password_hash: await hashPassword(BULK_SEND_PASSWORD),
      role: 'company_admin',
      company_id: company.id,
    })
    .execute();
  const services = await db
    .insertInto('services')
    .values(
      ['A', 'B', 'C'].map((letter) => ({
        company_id: company.id,
        name: `Service ${letter}`,
        shortcode: '22550',
        keyword: `BENCH${letter}`,
      })),
    )
    .returning('id')
    .execute();
  const [a, b, c] = services.map((service) => service.id);
  // With firstNames: every subscriber but each tenth has a first name, taken in turn from the list.
  const names = options.firstNames ?? [];
  await sql`
    insert into subscribers (company_id, msisdn, status, attributes)
    select ${company.id}, '+2547' || lpad(g::text, 8, '0'), 'active',
           case when cardinality(${names}::text[]) = 0 or g % 10 = 0 then '{}'::jsonb
                else jsonb_build_object('first_name', (${names}::text[])[1 + g % cardinality(${names}::text[])]) end
      from generate_series(1, ${recipients}) g`.execute(db);
  await sql`
    insert into subscriptions (company_id, service_id, subscriber_id, status, source)
    select company_id, ${a}::bigint, id, 'active', 'import' from subscribers where company_id = ${company.id} and id % 4 <> 3
    union all
    select company_id, ${b}::bigint, id, 'active', 'import' from subscribers where company_id = ${company.id} and id % 4 <> 0
    union all
    select company_id, ${c}::bigint, id, 'active', 'import' from subscribers where company_id = ${company.id} and id % 3 = 0`.execute(
    db,
  );
  await sql`vacuum analyze subscribers`.execute(db);
  await sql`vacuum analyze subscriptions`.execute(db);
  // The load's dirty pages written now rather than by a timed checkpoint during the send that
  // follows (which would then measure the load's writes), as the console reads' fixture does.
  await sql`checkpoint`.execute(db);
  const { rows } = await sql<{ count: number }>`
    select count(*)::int as count from subscriptions where company_id = ${company.id}`.execute(db);
  return {
    owner,
    companyId: company.id,
    serviceIds: [a, b, c],
    adminEmail,
    recipients,
    subscriptions: rows[0].count,
  };
}

async function call<T>(
  url: string,
  init: RequestInit & { token?: string } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(url, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
  });
  return { status: response.status, body: (await response.json()) as T };
}

export async function signIn(apiUrl: string, email: string, password = BULK_SEND_PASSWORD) {
  const { status, body } = await call<{ data: { accessToken: string } }>(`${apiUrl}/api/v1/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ email, password }),
  });
  if (status !== 200) throw new Error(`sign-in failed: ${status} ${JSON.stringify(body)}`);
  return body.data.accessToken;
}

/**
 * POST /messages/bulk/send to every service: the message id and how long the API call took. A
 * refused send (no services) goes first, so the timed call meets a warm server, as a running one is.
 */
export async function sendToEveryone(
  apiUrl: string,
  token: string,
  serviceIds: number[],
  message = 'Benchmark: one message to everyone',
) {
  for (let i = 0; i < 3; i++)
    await call(`${apiUrl}/api/v1/messages/bulk/send`, {
      method: 'POST',
      token,
      body: JSON.stringify({ serviceIds: [], message: 'warm-up' }),
    });
  const started = performance.now();
  const { status, body } = await call<{ data: { message: { id: number } } }>(
    `${apiUrl}/api/v1/messages/bulk/send`,
    {
      method: 'POST',
      token,
      body: JSON.stringify({ serviceIds, message }),
    },
  );
  const apiMs = performance.now() - started;
  if (status !== 201) throw new Error(`send failed: ${status} ${JSON.stringify(body)}`);
  return { messageId: body.data.message.id, apiMs };
}

/**
 * One POST /messages/bulk/send: its answer's status, the new message's id when accepted (201), and
 * the first words of any other answer, for the log.
 */
export async function postBulkSend(apiUrl: string, token: string, serviceIds: number[], message: string) {
  const response = await fetch(`${apiUrl}/api/v1/messages/bulk/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ serviceIds, message }),
  });
  const text = await response.text();
  if (response.status !== 201)
    return { status: response.status, messageId: undefined, answer: text.slice(0, 200) };
  const body = JSON.parse(text) as { data: { message: { id: number } } };
  return { status: response.status, messageId: body.data.message.id, answer: '' };
}

export type SendTimings = {
  /** From the API call to every recipient row written (the fan-out done). */
  rowsWrittenMs: number;
  /** From the API call to every recipient handed to the provider (none pending). */
  handedOverMs: number;
  recipients: number;
};

/** Polls the send's progress (as the owner) until every recipient is handed over. */
export async function waitForHandOver(
  owner: DatabaseHandle,
  messageId: number,
  startedAt: number,
  timeoutMs: number,
): Promise<SendTimings> {
  let rowsWrittenMs = 0;
  while (performance.now() - startedAt < timeoutMs) {
    const { rows } = await sql<{ state: string; recipients: number; pending: number }>`
      select s.state, s.recipients, coalesce(t.pending, 0)::int as pending
        from message_sends s
        left join message_delivery_totals t on t.company_id = s.company_id and t.message_id = s.message_id
       where s.message_id = ${messageId}`.execute(owner.db);
    const now = performance.now();
    const send = rows[0];
    if (send && !rowsWrittenMs && send.state !== 'fanout' && send.state !== 'waiting')
      rowsWrittenMs = now - startedAt;
    if (send && rowsWrittenMs && send.pending === 0)
      return { rowsWrittenMs, handedOverMs: now - startedAt, recipients: send.recipients };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`send ${messageId} was not handed over within ${timeoutMs / 1000} s`);
}

/** Recipients offered more than once, and phone numbers with more than one recipient row. */
export async function countDoubleSends(owner: DatabaseHandle, messageId: number) {
  const { rows } = await sql<{ reoffered: number; duplicate_phones: number; rows: number }>`
    select count(*) filter (where attempts > 1)::int as reoffered,
           (count(*) - count(distinct recipient_phone))::int as duplicate_phones,
           count(*)::int as rows
      from delivery_reports where message_id = ${messageId}`.execute(owner.db);
  return rows[0];
}
