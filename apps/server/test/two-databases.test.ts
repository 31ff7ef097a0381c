import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantWithStaff } from './support/factories.ts';
import { createService, kenyanNumber, subscribeNumbers } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * Two apps in one process, each on its own database (as a process serving two databases would be):
 * what one remembers of its database must never answer for the other's rows of the same ids.
 */
let first: TestContext;
let second: TestContext;

beforeAll(async () => {
  first = await createTestContext();
  second = await createTestContext();
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

const SUBSCRIBERS = 1200;

/** A company with SUBSCRIBERS subscribers, less the one at `gone` (0: the newest) of its list. */
async function companyWithList(ctx: TestContext, gone: number) {
  const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  const service = await createService(ctx.ownerDb, tenant.company.id);
  await subscribeNumbers(
    ctx.ownerDb,
    service,
    Array.from({ length: SUBSCRIBERS }, (_, i) => kenyanNumber(77, i)),
  );
  await sql`
    delete from subscribers where id = (select id from subscribers where company_id = ${tenant.company.id}
                                         order by id desc offset ${gone} limit 1)`.execute(ctx.ownerDb);
  return tenant;
}

type Tenant = Awaited<ReturnType<typeof companyWithList>>;

const listPage = async (ctx: TestContext, tenant: Tenant, page: number) => {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/api/v1/subscriptions/subscribers?limit=100&page=${page}`,
    headers: { authorization: `Bearer ${tenant.staff.company_admin.token}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().data.subscribers as { msisdn: string }[]).map((row) => row.msisdn);
};

/** The page as the table holds it: newest first, by OFFSET. */
const truth = async (ctx: TestContext, tenant: Tenant, page: number) => {
  const { rows } = await sql<{ msisdn: string }>`
    select msisdn from subscribers where company_id = ${tenant.company.id}
     order by id desc offset ${(page - 1) * 100} limit 100`.execute(ctx.ownerDb);
  return rows.map((row) => row.msisdn);
};

describe("a deep page of a company's subscribers", () => {
  it("comes from its own database's anchors, though another database's company of that id reads the same state", async () => {
    // The same company id, the same number of subscribers and the same newest id in both: only
    // which subscriber left differs (near the top in one, near the bottom in the other).
    const here = await companyWithList(first, 10);
    const there = await companyWithList(second, SUBSCRIBERS - 20);
    expect(there.company.id).toBe(here.company.id);
    const state = async (ctx: TestContext) => {
      const { rows } = await sql<{ state: string }>`
        select count(*) || ':' || max(id) as state from subscribers where company_id = ${here.company.id}`.execute(
        ctx.ownerDb,
      );
      return rows[0]!.state;
    };
    expect(await state(second)).toBe(await state(first));

    expect(await listPage(first, here, 11)).toEqual(await truth(first, here, 11));
    expect(await listPage(second, there, 11)).toEqual(await truth(second, there, 11));
    expect(await listPage(first, here, 11)).toEqual(await truth(first, here, 11));
  });
});
