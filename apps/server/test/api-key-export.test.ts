import { afterAll, expect, it } from 'vitest';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService, kenyanNumber, subscribeNumbers } from './support/services-factories.ts';
import { createTestContext } from './support/test-app.ts';

// Found by the hostile-input fuzz (issue 36): an export's batches re-check the request's sign-in,
// and a request made with an API key has none, so a key with the subscribers scope got a 200 whose
// CSV was cut off after its header line, every time. Its batches re-check the key instead.

const ctx = await createTestContext();
afterAll(() => ctx.close());
const home = await createTenantWithStaff(ctx.app, ctx.ownerDb);
const service = await createService(ctx.ownerDb, home.company.id);
await subscribeNumbers(
  ctx.ownerDb,
  service,
  Array.from({ length: 3 }, (_, i) => kenyanNumber(40, i)),
);

async function createKey() {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/api-keys',
    headers: bearer(home.staff.company_admin.token),
    payload: { name: `Export ${Date.now()}`, scopes: ['subscribers:manage'] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as { key: string; apiKey: { id: number } };
}

const exportWith = (key: string) =>
  ctx.app.inject({ method: 'GET', url: '/api/v1/subscriptions/subscribers/export', headers: bearer(key) });

it('an API key with the subscribers scope downloads the whole export', async () => {
  const { key } = await createKey();
  const response = await exportWith(key);
  expect(response.statusCode).toBe(200);
  const lines = response.body.trim().split('\n');
  expect(lines).toHaveLength(4);
  expect(lines.slice(1).every((line) => line.startsWith('+2547'))).toBe(true);
});

it('a revoked key exports nothing', async () => {
  const { key, apiKey } = await createKey();
  await ctx.ownerDb
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', apiKey.id)
    .execute();
  const response = await exportWith(key);
  expect(response.statusCode).toBe(401);
  expect(response.body).not.toContain('+2547');
});
