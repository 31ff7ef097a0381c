import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROLE, PREPARED_PER_CONNECTION } from '../src/db/database.ts';
import { ReadLanes } from '../src/db/read-lanes.ts';
import type { StatementLead } from '../src/db/statements.ts';
import { beginBoundText, companyScope } from '../src/db/tenant-scope.ts';
import { bearer, createCompany, createUser, signIn } from './support/factories.ts';
import { recordSent } from './support/recorded-statements.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let lanes: ReadLanes;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterEach(() => lanes?.close());
afterAll(() => ctx.close());

/** Lanes of their own over the test's database, acting as the application's role. */
const openLanes = (count: number) => {
  lanes = new ReadLanes(ctx.config.databaseAppUrl ?? '', count);
  return lanes;
};

/** The lead a company's read carries: BEGIN and the binding to that company (no sign-in to check). */
const leadFor = (companyId: number): StatementLead => ({
  begin: beginBoundText(companyScope(companyId), null, true),
  check: () => {},
});

type Row = Record<string, unknown>;
const rowsOf = (result: unknown) => (result as { rows: Row[] }).rows;

async function companyWithServices(count: number) {
  const company = await createCompany(ctx.ownerDb);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push((await createService(ctx.ownerDb, company.id)).id);
  return { id: company.id, serviceIds: ids };
}

const SERVICES_SEEN =
  "select coalesce(array_agg(id::int order by id), '{}') as ids, current_setting('app.company_id') as bound from services where id > $1";

describe('reads pipelined on shared connections', () => {
  it("keeps each read to its own company's rows when many of two companies share one lane", async () => {
    const first = await companyWithServices(2);
    const second = await companyWithServices(3);
    const lane = openLanes(1);
    const companies = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? first : second));

    const answers = await Promise.all(
      companies.map((company) => lane.run(leadFor(company.id), SERVICES_SEEN, [0])),
    );

    answers.forEach((answer, i) => {
      expect(rowsOf(answer)[0]).toEqual({ ids: companies[i].serviceIds, bound: String(companies[i].id) });
    });
  });

  it('fails a failing read alone, and leaves no transaction open behind it', async () => {
    const company = await companyWithServices(1);
    const lane = openLanes(1);
    const reads = Array.from({ length: 30 }, (_, i) =>
      i % 10 === 5
        ? lane.run(leadFor(company.id), 'select 1 / ($1::int - $1::int) as never', [1])
        : lane.run(leadFor(company.id), SERVICES_SEEN, [0]),
    );

    const settled = await Promise.allSettled(reads);

    settled.forEach((outcome, i) => {
      if (i % 10 === 5) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
      } else {
        expect(outcome.status).toBe('fulfilled');
        expect(rowsOf((outcome as PromiseFulfilledResult<unknown>).value)[0].ids).toEqual(company.serviceIds);
      }
    });
    const { rows } = await ctx.ownerPool.query(
      "select count(*)::int as open from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'",
    );
    expect(rows[0].open).toBe(0);
  });

  it('opens its connection again after losing it', async () => {
    const company = await companyWithServices(1);
    const lane = openLanes(1);
    const pidOf = async () =>
      rowsOf(await lane.run(leadFor(company.id), 'select pg_backend_pid() as pid where $1::int = 1', [1]))[0]
        .pid as number;
    const before = await pidOf();

    await ctx.ownerPool.query('select pg_terminate_backend($1)', [before]);

    // What was on the lost connection may fail once; the next read opens a new one.
    let after: number | undefined;
    for (let attempt = 0; attempt < 5 && after === undefined; attempt++) {
      after = await pidOf().catch(() => undefined);
      if (after === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });

  it('answers the reads behind a slow one on its standby, and the slow one on its lane', async () => {
    const company = await companyWithServices(1);
    const lane = openLanes(1);
    const PID_AFTER_SLEEP = 'select pg_backend_pid() as pid from pg_sleep($1::float8)';
    const pidAfter = (seconds: number) =>
      lane
        .run(leadFor(company.id), PID_AFTER_SLEEP, [seconds])
        .then((answer) => rowsOf(answer)[0].pid as number);
    const lanePid = await pidAfter(0);

    let slowAnswered = false;
    const slow = pidAfter(1.5).finally(() => {
      slowAnswered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const behind = await Promise.all([pidAfter(0), pidAfter(0), pidAfter(0)]);

    // Answered before the slow read, so none of them queued behind it.
    expect(slowAnswered).toBe(false);
    expect(new Set(behind).size).toBe(1);
    expect(behind[0]).not.toBe(lanePid);
    expect(await slow).toBe(lanePid);
    // The lane answers again: reads go back to it.
    expect(await pidAfter(0)).toBe(lanePid);
  });

  it('hands reads past a full lane to its standby at once', async () => {
    const company = await companyWithServices(1);
    const lane = openLanes(1);
    const pidOf = () =>
      lane
        .run(leadFor(company.id), 'select pg_backend_pid() as pid where $1::int = 1', [1])
        .then((answer) => rowsOf(answer)[0].pid as number);
    const lanePid = await pidOf();

    // Written in one go: the lane takes 16, the standby 4 at once, the rest wait for either.
    const pids = await Promise.all(Array.from({ length: 24 }, pidOf));

    expect(pids.slice(0, 16)).toEqual(Array(16).fill(lanePid));
    const standbyPid = pids[16];
    expect(standbyPid).not.toBe(lanePid);
    expect(pids.slice(16, 20)).toEqual(Array(4).fill(standbyPid));
  });

  it('keeps at most PREPARED_PER_CONNECTION statements prepared, answering every one of more sent at once', async () => {
    const company = await companyWithServices(1);
    const lane = openLanes(1);
    const distinct = PREPARED_PER_CONNECTION + 50;
    const runAll = () =>
      Promise.all(
        Array.from({ length: distinct }, (_, i) =>
          lane.run(leadFor(company.id), `select $1::int + ${i} as n`, [1000]),
        ),
      );

    for (const round of [await runAll(), await runAll()])
      round.forEach((answer, i) => {
        expect(rowsOf(answer)[0].n).toBe(1000 + i);
      });
    const prepared = rowsOf(
      await lane.run(
        leadFor(company.id),
        'select count(*)::int as prepared from pg_prepared_statements where $1::int = 1',
        [1],
      ),
    )[0].prepared as number;
    expect(prepared).toBeGreaterThan(0);
    expect(prepared).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
  });

  it('prepares afresh a statement a migration made stale, and answers', async () => {
    await ctx.ownerPool.query('create table lane_probe (id int primary key)');
    await ctx.ownerPool.query(`grant select on lane_probe to ${APP_ROLE}`);
    await ctx.ownerPool.query('insert into lane_probe values (1)');
    const company = await companyWithServices(1);
    const lane = openLanes(1);
    const probe = () => lane.run(leadFor(company.id), 'select * from lane_probe where id = $1', [1]);
    expect(rowsOf(await probe())).toEqual([{ id: 1 }]);

    await ctx.ownerPool.query('alter table lane_probe add column extra int not null default 7');

    expect(rowsOf(await probe())).toEqual([{ id: 1, extra: 7 }]);
  });
});

describe("the app's reads", () => {
  it("sends a known sign-in's read to the lanes, taking no connection from the pool", async () => {
    const company = await companyWithServices(1);
    const user = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
    const { accessToken } = await signIn(ctx.app, user.email);
    const get = () =>
      ctx.app.inject({
        method: 'GET',
        url: `/api/v1/services/${company.serviceIds[0]}`,
        headers: bearer(accessToken),
      });
    expect((await get()).statusCode).toBe(200);

    const sent = await recordSent(ctx.pool, async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, get));
      for (const answer of answers) expect(answer.statusCode).toBe(200);
    });

    expect(sent.checkouts).toBe(0);
    expect(sent.statements.filter((text) => text === 'commit').length).toBeGreaterThanOrEqual(20);
  });
});
