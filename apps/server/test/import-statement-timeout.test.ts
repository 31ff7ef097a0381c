import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// Requests' statements are cut at REQUEST_STATEMENT_TIMEOUT_MS; an import's set-based statements
// over a big file take longer by nature and run with none. The requests' limit is set so low here
// that the import's statements pass it, while a sign-in's do not.
let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
beforeAll(async () => {
  ctx = await createTestContext({ REQUEST_STATEMENT_TIMEOUT_MS: '300' });
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
});
afterAll(() => ctx?.close());

it('an import whose statements outlast a request’s time-out still completes', {
  timeout: 60_000,
}, async () => {
  await ctx.ownerDb
    .updateTable('companies')
    .set({ subscribers_limit: 1_000_000 })
    .where('id', '=', tenant.company.id)
    .execute();
  const service = await createService(ctx.ownerDb, tenant.company.id);
  const rows = 150_000;
  const lines = Array.from({ length: rows }, (_, i) => `+2547${String(10_000_000 + i).slice(-8)}`);
  const answer = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/services/${service.id}/subscribers/import`,
    headers: { ...bearer(tenant.staff.company_admin.token), 'content-type': 'text/csv' },
    payload: `msisdn\n${lines.join('\n')}\n`,
  });
  expect(answer.statusCode, answer.body).toBe(200);
  expect(answer.json().data).toMatchObject({ totalRows: rows, imported: rows });
});
