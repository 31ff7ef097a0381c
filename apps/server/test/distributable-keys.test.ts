import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// The schema stays distributable by company_id (docs/decisions/0010-past-one-machine.md): a sharded
// PostgreSQL (Citus) enforces a primary key, a unique key or a foreign key between distributed
// tables only when it includes the distribution column. Read from the catalog, so a table or key
// added later is checked without anyone remembering.

/**
 * Tables with a company_id column that stay global (reference tables in Citus, a copy on every
 * node), each with why. Every other table with a company_id column is distributed by it.
 */
const GLOBAL_TABLES: Record<string, string> = {
  users: 'a system admin has no company, and sign-in finds a user by e-mail before any company is known',
  audit_logs: "platform entries have no company, and a deleted company's entries stay as platform history",
};

type Key = { table: string; name: string; columns: string[]; expression: boolean };
type ForeignKey = { table: string; name: string; columns: string[]; target: string; targetColumns: string[] };

let ctx: TestContext;
let distributed: string[];
let uniqueKeys: Key[];
let foreignKeys: ForeignKey[];

beforeAll(async () => {
  ctx = await createTestContext();
  const query = async <T>(text: string) => (await ctx.ownerPool.query(text)).rows as T[];
  // Ordinary and partitioned tables, not partitions (they follow their parent) nor views.
  const tables = await query<{ table: string }>(`
    select c.relname as table
      from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'company_id' and not a.attisdropped
     where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
     order by 1`);
  distributed = tables.map((row) => row.table).filter((table) => !(table in GLOBAL_TABLES));
  uniqueKeys = await query<Key>(`
    select c.relname as table, i.relname as name,
           array(select a.attname::text from unnest(x.indkey) k join pg_attribute a on a.attrelid = c.oid and a.attnum = k
                  where k > 0) as columns,
           x.indexprs is not null as expression
      from pg_index x join pg_class c on c.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
     where x.indisunique and c.relnamespace = 'public'::regnamespace and not c.relispartition
     order by 1, 2`);
  foreignKeys = await query<ForeignKey>(`
    select c.relname as table, f.conname as name, t.relname as target,
           array(select a.attname::text from unnest(f.conkey) with ordinality k(n, i)
                   join pg_attribute a on a.attrelid = f.conrelid and a.attnum = k.n order by k.i) as columns,
           array(select a.attname::text from unnest(f.confkey) with ordinality k(n, i)
                   join pg_attribute a on a.attrelid = f.confrelid and a.attnum = k.n order by k.i) as "targetColumns"
      from pg_constraint f join pg_class c on c.oid = f.conrelid join pg_class t on t.oid = f.confrelid
     where f.contype = 'f' and f.connamespace = 'public'::regnamespace and not c.relispartition
     order by 1, 2`);
});

afterAll(async () => {
  await ctx?.close();
});

describe('distributable keys', () => {
  it('finds the tenant-owned tables it checks, and every global one still exists', () => {
    expect(distributed).toEqual(
      expect.arrayContaining(['messages', 'subscribers', 'subscriptions', 'services']),
    );
    expect(distributed).toContain('delivery_reports');
    const tableNames = new Set(uniqueKeys.map((key) => key.table));
    for (const table of Object.keys(GLOBAL_TABLES)) expect(tableNames).toContain(table);
  });

  it('every primary key and unique constraint or index of a distributed table includes company_id', () => {
    const missing = uniqueKeys
      .filter((key) => distributed.includes(key.table) && !key.columns.includes('company_id'))
      .map(
        (key) =>
          `${key.table}.${key.name} (${key.columns.join(', ')}${key.expression ? ', expressions' : ''})`,
      );
    expect(missing).toEqual([]);
  });

  it('every foreign key between distributed tables matches company_id with company_id', () => {
    const crossing = foreignKeys
      .filter((key) => distributed.includes(key.table) && distributed.includes(key.target))
      .filter((key) => {
        const at = key.columns.indexOf('company_id');
        return at < 0 || key.targetColumns[at] !== 'company_id';
      })
      .map((key) => `${key.table}.${key.name} (${key.columns.join(', ')}) -> ${key.target}`);
    expect(crossing).toEqual([]);
  });

  it('no global table references a distributed one (a reference table cannot)', () => {
    const backwards = foreignKeys
      .filter((key) => !distributed.includes(key.table) && distributed.includes(key.target))
      .map((key) => `${key.table}.${key.name} -> ${key.target}`);
    expect(backwards).toEqual([]);
  });
});

describe('the keys at work', () => {
  const claimOf = async (serviceId: number) =>
    (
      await ctx.ownerPool.query(
        'select shortcode, keyword from service_keyword_claims where service_id = $1',
        [serviceId],
      )
    ).rows;

  it('keeps a short code + keyword pair taken across companies as a service is created, renamed and deleted', async () => {
    const a = (await createCompany(ctx.ownerDb)).id;
    const b = (await createCompany(ctx.ownerDb)).id;
    const service = await createService(ctx.ownerDb, a, { shortcode: '70100', keyword: 'Jokes' });
    expect(await claimOf(service.id)).toEqual([{ shortcode: '70100', keyword: 'JOKES' }]);
    await expect(
      createService(ctx.ownerDb, b, { shortcode: '70100', keyword: 'JOKES' }),
    ).rejects.toMatchObject({
      code: '23505',
    });

    await ctx.ownerPool.query(`update services set keyword = 'RIDDLES' where company_id = $1 and id = $2`, [
      a,
      service.id,
    ]);
    expect(await claimOf(service.id)).toEqual([{ shortcode: '70100', keyword: 'RIDDLES' }]);
    const taker = await createService(ctx.ownerDb, b, { shortcode: '70100', keyword: 'jokes' });

    // A counter update (every import and send does one) leaves the registry alone.
    await ctx.ownerPool.query('update services set message_count = message_count + 1 where id = $1', [
      taker.id,
    ]);
    expect(await claimOf(taker.id)).toEqual([{ shortcode: '70100', keyword: 'JOKES' }]);

    await ctx.ownerPool.query('delete from companies where id = $1', [b]);
    expect(await claimOf(taker.id)).toEqual([]);
    await createService(ctx.ownerDb, a, { shortcode: '70100', keyword: 'JOKES' });
  });

  it('refuses a subscription or a message that names another company’s service or subscriber', async () => {
    const a = (await createCompany(ctx.ownerDb)).id;
    const b = (await createCompany(ctx.ownerDb)).id;
    const serviceOfB = await createService(ctx.ownerDb, b);
    const subscriberOfA = (
      await ctx.ownerPool.query(
        `insert into subscribers (company_id, msisdn) values ($1, '+254711000001') returning id`,
        [a],
      )
    ).rows[0].id;
    await expect(
      ctx.ownerPool.query(
        'insert into subscriptions (company_id, service_id, subscriber_id) values ($1, $2, $3)',
        [a, serviceOfB.id, subscriberOfA],
      ),
    ).rejects.toMatchObject({ code: '23503' });
    await expect(
      ctx.ownerPool.query(
        `insert into messages (company_id, service_id, content, status) values ($1, $2, 'hello', 'pending')`,
        [a, serviceOfB.id],
      ),
    ).rejects.toMatchObject({ code: '23503' });
  });

  it('a deleted service leaves its messages in their company, without a service', async () => {
    const a = (await createCompany(ctx.ownerDb)).id;
    const service = await createService(ctx.ownerDb, a);
    const message = (
      await ctx.ownerPool.query(
        `insert into messages (company_id, service_id, content, status) values ($1, $2, 'hello', 'sent') returning id`,
        [a, service.id],
      )
    ).rows[0].id;
    await ctx.ownerPool.query('delete from services where id = $1', [service.id]);
    const { rows } = await ctx.ownerPool.query('select company_id, service_id from messages where id = $1', [
      message,
    ]);
    expect(rows).toEqual([{ company_id: a, service_id: null }]);
  });

  it("moves a service's counters through the company key, not by reading every company's services", async () => {
    const a = (await createCompany(ctx.ownerDb)).id;
    const service = await createService(ctx.ownerDb, a);
    const client = await ctx.ownerPool.connect();
    const plans: string[] = [];
    const onNotice = (notice: { message?: string }) => {
      if (notice.message?.includes('Update on services')) plans.push(notice.message);
    };
    client.on('notice', onNotice);
    try {
      await client.query('begin');
      // The plans of the counter triggers' statements come back as notices (auto_explain, nested).
      await client.query(`load 'auto_explain'`);
      await client.query(`set local auto_explain.log_min_duration = 0;
                          set local auto_explain.log_nested_statements = on;
                          set local client_min_messages = log`);
      const subscriber = (
        await client.query(
          `insert into subscribers (company_id, msisdn) values ($1, '+254711000002') returning id`,
          [a],
        )
      ).rows[0].id;
      await client.query(
        'insert into subscriptions (company_id, service_id, subscriber_id) values ($1, $2, $3)',
        [a, service.id, subscriber],
      );
      await client.query(
        `insert into messages (company_id, service_id, content, status) values ($1, $2, 'hello', 'sent')`,
        [a, service.id],
      );
      const counters = await client.query(
        'select subscriber_count, message_count from services where company_id = $1 and id = $2',
        [a, service.id],
      );
      await client.query('rollback');
      expect(counters.rows).toEqual([{ subscriber_count: 1, message_count: 1 }]);
      // The subscription's counter and the message's: each finds its service by company and id (the key).
      expect(plans).toHaveLength(2);
      for (const plan of plans) expect(plan).toMatch(/(Index|Hash) Cond: .*company_id = d\.company_id/);
    } finally {
      client.off('notice', onNotice);
      client.release();
    }
  });
});
