import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/lib/crypto.ts';
import { acceptDeliveryReports } from '../src/messaging/delivery-report-intake.ts';
import type { DeliveryUpdate } from '../src/messaging/providers/provider.ts';
import { applyWaitingReports } from './support/delivery-report-inbox.ts';
import { createCompany } from './support/factories.ts';
import { insertHandedOverMessage } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A delivery-report batch from a callback URL: its token is checked as it is stored in the inbox,
 * and the inbox is applied afterwards. Nothing but a company's current dlr token (whatever the
 * company's status) may store anything for it.
 */
let ctx: TestContext;
type Tenant = { id: number; dlr: string; subscription: string };
let mine: Tenant;
let theirs: Tenant;
let suspended: Tenant;

const report = (id: string, status: DeliveryUpdate['status'] = 'delivered'): DeliveryUpdate => ({
  providerMessageId: id,
  status,
  providerStatus: status === 'delivered' ? 'Success' : status === 'failed' ? 'Failed' : 'Sent',
  error: status === 'failed' ? 'DeliveryFailure' : null,
  at: new Date(),
});

/** An active company (or in `status`) with its two callback tokens. */
async function tenant(status = 'active'): Promise<Tenant> {
  const company = await createCompany(ctx.ownerDb, { status });
  const tokens = {
    dlr: `dlr-${company.id}-${'d'.repeat(32)}`,
    subscription: `sub-${company.id}-${'s'.repeat(32)}`,
  };
  for (const [type, token] of Object.entries(tokens))
    await sql`
      insert into company_callback_tokens (company_id, callback_type, token_hash, token_encrypted)
      values (${company.id}, ${type}, ${sha256(token)}, 'not used here')`.execute(ctx.ownerDb);
  return { id: company.id, ...tokens };
}

/** A sent message whose one send is handed over, with `gids.length` recipients waiting (submitted). */
const handedOverMessage = (companyId: number, gids: string[]) =>
  insertHandedOverMessage(ctx.ownerDb, companyId, gids, { send: true });

const statusesOf = async (gids: string[]) =>
  (
    await sql<{ status: string }>`
      select d.status from unnest(${gids}::text[]) with ordinality g(gid, ord)
      left join delivery_reports d on d.gateway_message_id = g.gid order by g.ord`.execute(ctx.ownerDb)
  ).rows.map((row) => row.status);

const totalsOf = async (messageId: number) =>
  (
    await sql<{ submitted: number; delivered: number; failed: number; total: number }>`
      select submitted::int, delivered::int, failed::int, total::int from message_delivery_totals
       where message_id = ${messageId}`.execute(ctx.ownerDb)
  ).rows[0];

const messageStatus = async (messageId: number) =>
  (
    await ctx.ownerDb
      .selectFrom('messages')
      .select('status')
      .where('id', '=', messageId)
      .executeTakeFirstOrThrow()
  ).status;

const keptFor = async (companyId: number) =>
  (
    await sql<{ gid: string }>`
      select gateway_message_id as gid from unmatched_delivery_reports where company_id = ${companyId}
       order by gateway_message_id`.execute(ctx.ownerDb)
  ).rows.map((row) => row.gid);

/** The batch as the intake stores it, every report with its URL token, then applied; whether each was accepted. */
async function take(companyId: number, updates: DeliveryUpdate[], tokens: string[]) {
  const accepted = await acceptDeliveryReports(ctx.db, companyId, updates, tokens.map(sha256));
  await applyWaitingReports(ctx.db);
  return accepted;
}

beforeAll(async () => {
  ctx = await createTestContext();
  mine = await tenant();
  theirs = await tenant();
  suspended = await tenant('suspended');
});
afterAll(async () => ctx?.close());

describe('a batch of reports from a callback URL', () => {
  it('with the company’s token: applies, counts and settles the message', async () => {
    const messageId = await handedOverMessage(mine.id, ['TAKE-1', 'TAKE-2', 'TAKE-3']);
    const outcomes = await take(
      mine.id,
      [
        report('TAKE-2'),
        report('TAKE-1', 'failed'),
        report('TAKE-unknown'),
        report('TAKE-2', 'sent'),
        report('TAKE-3'),
      ],
      Array(5).fill(mine.dlr),
    );
    // TAKE-2 twice: its first copy carried the news, the second is a repeat (and older news).
    expect(outcomes).toEqual(Array(5).fill(true));
    expect(await statusesOf(['TAKE-1', 'TAKE-2', 'TAKE-3'])).toEqual(['failed', 'delivered', 'delivered']);
    expect(await totalsOf(messageId)).toEqual({ submitted: 0, delivered: 2, failed: 1, total: 3 });
    expect(await messageStatus(messageId)).toBe('delivered');
    expect(await keptFor(mine.id)).toEqual(['TAKE-unknown']);

    // A repeat of the whole batch changes nothing, the counters included.
    const again = await take(
      mine.id,
      [report('TAKE-1'), report('TAKE-2'), report('TAKE-3')],
      Array(3).fill(mine.dlr),
    );
    expect(again).toEqual([true, true, true]);
    expect(await statusesOf(['TAKE-1', 'TAKE-2', 'TAKE-3'])).toEqual(['failed', 'delivered', 'delivered']);
    expect(await totalsOf(messageId)).toEqual({ submitted: 0, delivered: 2, failed: 1, total: 3 });
  });

  it('carries each report’s values as they came: quotes, backslashes, commas and braces in ids and reasons, times to the millisecond', async () => {
    const gids = ['TAKE-"quoted"', 'TAKE-back\\slash', 'TAKE-a,b{c}', 'TAKE-NULL'];
    const messageId = await handedOverMessage(mine.id, gids);
    const at = new Date('2026-11-20T10:11:12.345Z');
    const updates: DeliveryUpdate[] = gids.map((gid, i) => ({
      providerMessageId: gid,
      status: i === 1 ? 'failed' : 'delivered',
      providerStatus: i === 1 ? 'Failed "hard", {really}' : 'Success',
      error: i === 1 ? 'reason with \\ and "quotes"' : null,
      at,
    }));
    const unknown = { ...report('TAKE-unknown "x"\\'), at };
    expect(await take(mine.id, [...updates, unknown], Array(5).fill(mine.dlr))).toEqual(Array(5).fill(true));
    const { rows } = await sql<{
      gid: string;
      status: string;
      provider_status: string;
      error_message: string | null;
      delivered_at: Date | null;
    }>`
      select gateway_message_id as gid, status, provider_status, error_message, delivered_at from delivery_reports
       where message_id = ${messageId} order by gateway_message_id collate "C"`.execute(ctx.ownerDb);
    expect(rows).toEqual(
      [
        {
          gid: gids[0],
          status: 'delivered',
          provider_status: 'Success',
          error_message: null,
          delivered_at: at,
        },
        {
          gid: gids[1],
          status: 'failed',
          provider_status: 'Failed "hard", {really}',
          error_message: 'reason with \\ and "quotes"',
          delivered_at: null,
        },
        {
          gid: gids[2],
          status: 'delivered',
          provider_status: 'Success',
          error_message: null,
          delivered_at: at,
        },
        {
          gid: gids[3],
          status: 'delivered',
          provider_status: 'Success',
          error_message: null,
          delivered_at: at,
        },
      ].sort((a, b) => (a.gid < b.gid ? -1 : a.gid > b.gid ? 1 : 0)),
    );
    expect(await keptFor(mine.id)).toContain(unknown.providerMessageId);
  });

  it('refuses a wrong token, the subscription token and another company’s token: nothing applied, nothing kept', async () => {
    await handedOverMessage(mine.id, ['WRONG-1']);
    const attempts: [number, string, string][] = [
      [mine.id, 'x'.repeat(43), 'WRONG-1'],
      [mine.id, mine.subscription, 'WRONG-1'],
      [mine.id, theirs.dlr, 'WRONG-1'],
      [theirs.id, mine.dlr, 'WRONG-1'],
      [suspended.id, mine.dlr, 'WRONG-1'],
      [987_654_321, mine.dlr, 'WRONG-1'],
    ];
    for (const [companyId, token, gid] of attempts)
      expect(await take(companyId, [report(gid), report(`${gid}-unknown`)], [token, token])).toEqual([
        false,
        false,
      ]);
    expect(await statusesOf(['WRONG-1'])).toEqual(['submitted']);
    for (const companyId of [mine.id, theirs.id, suspended.id])
      expect((await keptFor(companyId)).filter((gid) => gid.startsWith('WRONG'))).toEqual([]);
  });

  it('applies a suspended company’s reports with its token: what was handed over still settles', async () => {
    await handedOverMessage(suspended.id, ['HELD-S']);
    expect(await take(suspended.id, [report('HELD-S')], [suspended.dlr])).toEqual([true]);
    expect(await statusesOf(['HELD-S'])).toEqual(['delivered']);
  });

  it('in one batch, applies the reports whose token is right and refuses the others', async () => {
    await handedOverMessage(mine.id, ['MIXED-1', 'MIXED-2']);
    const outcomes = await take(mine.id, [report('MIXED-1'), report('MIXED-2')], ['y'.repeat(43), mine.dlr]);
    expect(outcomes).toEqual([false, true]);
    expect(await statusesOf(['MIXED-1', 'MIXED-2'])).toEqual(['submitted', 'delivered']);
  });

  it('the apply runs as the caller (security invoker), like the functions it calls', async () => {
    const { rows } = await sql<{ name: string; definer: boolean }>`
      select proname as name, prosecdef as definer from pg_proc
       where proname in ('apply_delivery_report_inbox', 'record_send_progress', 'current_callback_token_hash')
       order by proname`.execute(ctx.ownerDb);
    expect(rows).toEqual([
      { name: 'apply_delivery_report_inbox', definer: false },
      { name: 'current_callback_token_hash', definer: false },
      { name: 'record_send_progress', definer: false },
    ]);
  });
});
