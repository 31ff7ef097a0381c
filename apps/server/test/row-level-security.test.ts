import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertRowSecurityHolds } from '../src/db/app-role.ts';
import type { DB } from '../src/db/schema.ts';
import { bindScope, companyScope, inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { regenerateCallbackTokens } from '../src/modules/callbacks/callback-tokens.ts';
import { addCompanyData } from './support/admin-factories.ts';
import { createCompany, createUser } from './support/factories.ts';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';

// The wall: whatever a query forgets to filter, the database holds each company to its own rows.
// Every table in public with a company_id column is tenant-owned (companies by its id), read from
// the catalog, so a table added later is covered without anyone remembering; it fails here until
// it has a policy, and until seedTenantRows below gives it rows for both companies. A table that
// sms_app holds no right on at all is outside the wall (read only through a function that scopes
// itself, tested with that function): it is listed in OUTSIDE_THE_WALL, or this file fails.
const OUTSIDE_THE_WALL = ['message_search_text', 'message_search_vocabulary'];

type TenantTable = { name: string; column: string; rowSecurity: boolean; forced: boolean };

let ctx: TestContext;
let tables: TenantTable[];
/** The tables seedTenantRows gives rows of both companies: the behavioural checks run on these. */
let seeded: TenantTable[];
let a: number;
let b: number;

/** Rows of every tenant-owned table for one company (counters come from the triggers). */
async function seedTenantRows(companyId: number) {
  const db = ctx.ownerDb;
  const user = await createUser(db, { role: 'company_admin', companyId });
  await regenerateCallbackTokens(db, companyId, Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
  const { subscriberId } = await addCompanyData(db, companyId);
  const message = await db
    .selectFrom('messages')
    .select('id')
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  await db
    .insertInto('delivery_reports')
    .values({
      company_id: companyId,
      created_at: new Date(),
      message_id: message.id,
      subscriber_id: subscriberId,
      recipient_phone: '+254700000001',
    })
    .execute();
  await db
    .insertInto('audit_logs')
    .values({ company_id: companyId, action: 'CREATE', entity: 'SERVICE', details: '{}' })
    .execute();
  // The messaging engine's state (migration 0006).
  for (const statement of [
    sql`insert into message_sends (company_id, message_id) values (${companyId}, ${message.id})`,
    sql`insert into message_delivery_counts (company_id, message_id, shard, pending)
        values (${companyId}, ${message.id}, 0, 1)`,
    sql`insert into company_monthly_usage (company_id, month, messages_used)
        values (${companyId}, date_trunc('month', now())::date, 1)`,
    sql`insert into company_send_windows (company_id, window_start) values (${companyId}, now())`,
    sql`insert into idempotency_keys (company_id, user_id, idempotency_key, request_hash)
        values (${companyId}, ${user.id}, 'wall-key', ${Buffer.from([0])})`,
    sql`insert into unmatched_delivery_reports (company_id, gateway_message_id, status, reported_at)
        values (${companyId}, 'wall-gateway-id', 'delivered', now())`,
    // Provider ids handed out, where delivery reports find their recipient (migration 0029).
    sql`insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
        select company_id, 'wall-gateway-id', created_at, message_id, id from delivery_reports
         where company_id = ${companyId}`,
    // Delivery reports accepted and not yet applied (migration 0032).
    sql`insert into delivery_report_inbox (company_id, gateway_message_ids, statuses, provider_statuses,
                                           error_messages, reported_ats)
        values (${companyId}, '{wall-gateway-id}', '{delivered}', '{Success}', '{NULL}', array[now()])`,
    // Provider settings per company (migration 0007).
    sql`insert into company_provider_settings (company_id, kind) values (${companyId}, 'simulator')`,
    // API keys (migration 0054).
    sql`insert into api_keys (company_id, name, prefix, key_hash, scopes, created_by)
        values (${companyId}, 'Wall key', ${`smsk_live_w${companyId}`}, ${Buffer.from([1])}, '{messages:read}', ${user.id})`,
    // A message template (migration 0058).
    sql`insert into message_templates (company_id, name, body, created_by)
        values (${companyId}, 'Wall template', 'Hi {{first_name|friend}}', ${user.id})`,
    // Webhooks: an endpoint, an event of its outbox, a delivery (migration 0056).
    sql`insert into webhook_endpoints (company_id, url, event_types, secret_encrypted, secret_prefix)
        values (${companyId}, 'https://hooks.example.com/wall', '{message.sent}', 'v1.x.y.z', 'whsec_wall')`,
    sql`insert into webhook_events (company_id, type, subject, payload)
        values (${companyId}, 'message.sent', 'message:1', '{}')`,
    sql`insert into webhook_deliveries (company_id, endpoint_id, event_count, event_types, attempt,
                                        status_code, duration_ms, succeeded)
        select company_id, id, 1, '{message.sent}', 1, 200, 5, true from webhook_endpoints
         where company_id = ${companyId}`,
    // A provider failing for the whole account (hand-over.ts).
    sql`insert into company_provider_health (company_id, reason, next_probe_at)
        values (${companyId}, 'not bound to the SMSC', now())`,
    // A hand-over batch's claim (hand-over.ts).
    sql`insert into hand_over_claims (company_id, message_id, first_id, claimed_until)
        values (${companyId}, 1, 1, now())`,
  ])
    await statement.execute(db);
}

beforeAll(async () => {
  ctx = await createTestContext();
  a = (await createCompany(ctx.ownerDb)).id;
  b = (await createCompany(ctx.ownerDb)).id;
  await seedTenantRows(a);
  await seedTenantRows(b);
  // Platform rows (no company): a system admin and a platform audit entry.
  await createUser(ctx.ownerDb, { role: 'system_admin' });
  await ctx.ownerDb
    .insertInto('audit_logs')
    .values({ company_id: null, action: 'LOGIN', entity: 'USER', details: '{}' })
    .execute();

  const { rows } = await sql<TenantTable>`
    select c.relname as name,
           case when c.relname = 'companies' then 'id' else 'company_id' end as column,
           c.relrowsecurity as "rowSecurity", c.relforcerowsecurity as forced
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
       and (c.relname = 'companies'
            or exists (select 1 from pg_attribute a
                        where a.attrelid = c.oid and a.attname = 'company_id' and not a.attisdropped))
       and has_table_privilege('sms_app', c.oid, 'select, insert, update, delete, truncate, references, trigger')
     order by c.relname`.execute(ctx.ownerDb);
  tables = rows;
  seeded = [];
  for (const t of tables) if ((await ownerCount(t, a)) > 0 && (await ownerCount(t, b)) > 0) seeded.push(t);
});
afterAll(() => ctx.close());

const table = (name: string) => sql.table(name);
const tenantColumn = (t: TenantTable) => sql.ref(t.column);

/** The tenant column of every row the query returns. */
async function owners(trx: Transaction<DB>, query: ReturnType<typeof sql>) {
  const { rows } = await query.execute(trx);
  return (rows as { owner: number | null }[]).map((row) => row.owner);
}

async function ownerCount(t: TenantTable, companyId: number | null) {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from ${table(t.name)}
     where ${companyId === null ? sql`${tenantColumn(t)} is null` : sql`${tenantColumn(t)} = ${companyId}`}`.execute(
    ctx.ownerDb,
  );
  return rows[0].n;
}

class Rollback extends Error {}

/** Runs work bound to a scope, then undoes it: the wall is probed with real writes, the fixtures stay. */
async function probeAndRollBack(
  scope: Parameters<typeof bindScope>[1],
  work: (trx: Transaction<DB>) => Promise<void>,
) {
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      await bindScope(trx, scope);
      await work(trx);
      throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
}

it('finds the tenant-owned tables, each with row-level security enabled and forced', () => {
  const names = tables.map((t) => t.name);
  for (const expected of [
    'audit_logs',
    'companies',
    'company_callback_tokens',
    'company_subscriber_counts',
    'delivery_reports',
    'messages',
    'services',
    'subscribers',
    'subscriptions',
    'users',
  ])
    expect(names).toContain(expected);
  expect(tables.filter((t) => !t.rowSecurity || !t.forced).map((t) => t.name)).toEqual([]);
});

it('keeps sms_app out of the tenant-owned tables outside the wall, which keep a policy should it be let in', async () => {
  const { rows } = await sql<{ name: string; rowSecurity: boolean }>`
    select c.relname as name, c.relrowsecurity as "rowSecurity"
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
       and exists (select 1 from pg_attribute a
                    where a.attrelid = c.oid and a.attname = 'company_id' and not a.attisdropped)
       and not has_table_privilege('sms_app', c.oid, 'select, insert, update, delete, truncate, references, trigger')
     order by c.relname`.execute(ctx.ownerDb);
  expect(rows.map((row) => row.name)).toEqual(OUTSIDE_THE_WALL);
  expect(rows.filter((row) => !row.rowSecurity)).toEqual([]);
  for (const name of OUTSIDE_THE_WALL)
    await expect(
      inTenantTransaction(ctx.db, companyScope(a), (trx) => sql`select * from ${table(name)}`.execute(trx)),
    ).rejects.toThrow(/permission denied/);
});

it('reaches partitions of tenant-owned tables only through their parent, or holds them to the same wall', async () => {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relispartition
       and exists (select 1 from pg_attribute a
                    where a.attrelid = c.oid and a.attname = 'company_id' and not a.attisdropped)
       and has_table_privilege('sms_app', c.oid, 'select, insert, update, delete')
       and not (c.relrowsecurity and c.relforcerowsecurity)`.execute(ctx.ownerDb);
  expect(rows).toEqual([]);
});

it('binds each policy once per statement: policies compare with (select app_company_id()), not a per-row call', async () => {
  // A per-row app_tenant_visible() call doubled the cost of writing a million recipients (migration 0011).
  const { rows } = await sql<{ table: string; policy: string }>`
    select tablename as table, policyname as policy
      from pg_policies
     where schemaname = 'public' and tablename !~ '^delivery_reports_y[0-9]{4}m[0-9]{2}$'
       and (coalesce(qual, '') ~ 'app_tenant_visible\\(' or coalesce(with_check, '') ~ 'app_tenant_visible\\('
            or regexp_replace(coalesce(qual, '') || coalesce(with_check, ''), 'SELECT app_platform_scope\\(\\)', '', 'g')
               ~ 'app_platform_scope\\(')`.execute(ctx.ownerDb);
  expect(rows, 'write these policies as in migration 0011').toEqual([]);
});

it('has rows of both companies in every tenant-owned table (seedTenantRows covers new tables)', () => {
  const missing = tables.filter((t) => !seeded.includes(t)).map((t) => t.name);
  expect(missing, 'add rows for these tables to seedTenantRows').toEqual([]);
});

it("the application's connections act as sms_app, which no policy exempts", async () => {
  const { rows } = await sql<{ user: string; superuser: boolean; bypass: boolean }>`
    select current_user as user, r.rolsuper as superuser, r.rolbypassrls as bypass
      from pg_roles r where r.rolname = current_user`.execute(ctx.db);
  expect(rows).toEqual([{ user: 'sms_app', superuser: false, bypass: false }]);
  await expect(assertRowSecurityHolds({ pool: ctx.ownerPool })).rejects.toThrow(
    /row-level security would not hold/,
  );
});

describe('under company A', () => {
  it('an unfiltered select * returns all of A and nothing else, in every tenant-owned table', async () => {
    for (const t of seeded) {
      const seen = await inTenantTransaction(ctx.db, companyScope(a), (trx) =>
        owners(trx, sql`select ${tenantColumn(t)} as owner, * from ${table(t.name)}`),
      );
      expect(new Set(seen), t.name).toEqual(new Set([a]));
      expect(seen.length, t.name).toBe(await ownerCount(t, a));
    }
  });

  it("an unfiltered update touches none of B's rows, nor moves a row to B", async () => {
    for (const t of seeded) {
      const column = (
        await sql<{ name: string }>`
          select column_name as name from information_schema.columns
           where table_schema = 'public' and table_name = ${t.name}
             and is_identity = 'NO' and is_generated = 'NEVER'
           order by ordinal_position limit 1`.execute(ctx.ownerDb)
      ).rows[0].name;
      await probeAndRollBack(companyScope(a), async (trx) => {
        const touched = await owners(
          trx,
          sql`update ${table(t.name)} set ${sql.ref(column)} = ${sql.ref(column)} returning ${tenantColumn(t)} as owner`,
        );
        expect(
          touched.filter((owner) => owner !== a),
          t.name,
        ).toEqual([]);
      });
      if (t.column === 'company_id') {
        // Either the policy refuses the new company outright, or the update reaches no row.
        const before = await ownerCount(t, b);
        const moved = await probeAndRollBack(companyScope(a), async (trx) => {
          await sql`update ${table(t.name)} set company_id = ${b}`.execute(trx);
          await bindScope(trx, platformScope);
          const after = await owners(
            trx,
            sql`select company_id as owner from ${table(t.name)} where company_id = ${b}`,
          );
          expect(after.length, t.name).toBe(before);
        }).catch((error: Error) => error.message);
        if (moved !== undefined) expect(moved, t.name).toMatch(/row-level security/);
      }
    }
  });

  it("an unfiltered delete touches none of B's rows", async () => {
    for (const t of seeded) {
      const before = await ownerCount(t, b);
      await probeAndRollBack(companyScope(a), async (trx) => {
        const deleted = await owners(
          trx,
          sql`delete from ${table(t.name)} returning ${tenantColumn(t)} as owner`,
        );
        expect(
          deleted.filter((owner) => owner !== a),
          t.name,
        ).toEqual([]);
        // Seen from the platform inside the same transaction: B's rows are all still there.
        await bindScope(trx, platformScope);
        const left = await owners(trx, sql`select ${tenantColumn(t)} as owner from ${table(t.name)}`);
        expect(left.filter((owner) => owner === b).length, t.name).toBe(before);
      });
    }
  });

  it('cannot insert a row for B, nor a platform audit entry', async () => {
    await expect(
      inTenantTransaction(ctx.db, companyScope(a), (trx) =>
        trx.insertInto('subscribers').values({ company_id: b, msisdn: '+254700009999' }).execute(),
      ),
    ).rejects.toThrow(/row-level security/);
    for (const companyId of [b, null])
      await expect(
        inTenantTransaction(ctx.db, companyScope(a), (trx) =>
          trx
            .insertInto('audit_logs')
            .values({ company_id: companyId, action: 'CREATE', entity: 'SERVICE', details: '{}' })
            .execute(),
        ),
      ).rejects.toThrow(/row-level security/);
  });
});

it('unbound work sees nothing and cannot write', async () => {
  for (const t of tables) {
    const seen = await ctx.db
      .transaction()
      .execute((trx) => owners(trx, sql`select ${tenantColumn(t)} as owner from ${table(t.name)}`));
    expect(seen, t.name).toEqual([]);
  }
  await expect(
    ctx.db.insertInto('subscribers').values({ company_id: a, msisdn: '+254700009998' }).execute(),
  ).rejects.toThrow(/row-level security/);
});

it('the platform scope sees every company, and the platform rows', async () => {
  for (const t of seeded) {
    const seen = await inTenantTransaction(ctx.db, platformScope, (trx) =>
      owners(trx, sql`select ${tenantColumn(t)} as owner from ${table(t.name)}`),
    );
    expect(seen.length, t.name).toBe(
      (await ownerCount(t, a)) + (await ownerCount(t, b)) + (await ownerCount(t, null)),
    );
    expect(seen, t.name).toEqual(expect.arrayContaining([a, b]));
  }
});
