import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../src/db/database.ts';
import {
  companyScope,
  inTenantTransaction,
  platformScope,
  type TenantScope,
} from '../src/db/tenant-scope.ts';
import {
  countMatches,
  newestMatches,
  readPattern,
} from '../src/modules/messages/message-search.repository.ts';
import { createCompany } from './support/factories.ts';
import { insertMessage } from './support/message-log-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// The search's count reads the side table through message_search_entries, outside row-level
// security (as newestMatches does), so the view's condition is the only wall between tenants there.
// It must count exactly what newestMatches would return. Probed through sms_app's own connections.

let ctx: TestContext;
let a: number;
let b: number;

beforeAll(async () => {
  ctx = await createTestContext();
  a = (await createCompany(ctx.ownerDb)).id;
  b = (await createCompany(ctx.ownerDb)).id;
  // Company a: three weekend messages; company b: five. One number each.
  for (const [company, n] of [
    [a, 3],
    [b, 5],
  ] as const)
    for (let i = 0; i < n; i++)
      await insertMessage(ctx.ownerDb, {
        companyId: company,
        content: i % 2 ? 'Weekend SALE' : 'weekend match',
        msisdn: `+2547330000${company % 10}${i}`,
      });
});
afterAll(() => ctx?.close());

const count = async (db: Executor, companyId: number | null, pattern: string, limit = 100) =>
  countMatches(db, companyId, await readPattern(db, companyId, pattern), limit);
const listed = async (db: Executor, companyId: number | null, pattern: string, limit = 100) =>
  (await newestMatches(db, companyId, await readPattern(db, companyId, pattern), limit)).length;
const as = <T>(scope: TenantScope, work: (db: Executor) => Promise<T>) =>
  inTenantTransaction(ctx.db, scope, (trx) => work(trx));

describe('countMatches', () => {
  it("bound to company A, counts A's matches only, whichever company is asked for", async () => {
    expect(await as(companyScope(a), (db) => count(db, null, '%weekend%'))).toBe(3);
    expect(await as(companyScope(a), (db) => count(db, a, '%weekend%'))).toBe(3);
    expect(await as(companyScope(a), (db) => count(db, b, '%weekend%'))).toBe(0);
    expect(await as(companyScope(b), (db) => count(db, null, '%sale%'))).toBe(2);
  });

  it('unbound, counts nothing; in the platform scope, every company or the one asked for', async () => {
    expect(await count(ctx.db, a, '%weekend%')).toBe(0);
    expect(await count(ctx.db, null, '%weekend%')).toBe(0);
    expect(await as(platformScope, (db) => count(db, null, '%weekend%'))).toBe(8);
    expect(await as(platformScope, (db) => count(db, b, '%weekend%'))).toBe(5);
  });

  it('counts what newestMatches finds, up to the limit, for long and short text and numbers', async () => {
    for (const scope of [companyScope(a), companyScope(b), platformScope])
      for (const [pattern, limit] of [
        ['%weekend%', 100],
        ['%weekend%', 2],
        ['%e%', 100],
        ['%e%', 4],
        ['%733000%', 100],
        ['%zzqx%', 100],
      ] as const)
        expect(
          await as(scope, (db) => count(db, null, pattern, limit)),
          `${JSON.stringify(scope)} ${pattern} ${limit}`,
        ).toBe(await as(scope, (db) => listed(db, null, pattern, limit)));
  });
});
