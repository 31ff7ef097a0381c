import { IMPORT_MAX_ROWS, IMPORT_MESSAGES } from '@sms/contracts/subscribers/import-subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let token: string;
let serviceId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  token = tenant.staff.company_admin.token;
  serviceId = (await createService(ctx.ownerDb, tenant.company.id)).id;
});
afterAll(() => ctx.close());

const importCsv = (csv: string, contentType = 'text/csv') =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/v1/services/${serviceId}/subscribers/import`,
    headers: { ...bearer(token), 'content-type': contentType },
    payload: csv,
  });

/** Numbers libphonenumber has to work on before refusing them (too long): the slow kind of bad row. */
const malformedRows = (count: number) =>
  ['phone', ...Array.from({ length: count }, (_, i) => `0712 345 678 9${i}`)].join('\n');

describe('a large malformed import', () => {
  it('does not stall other requests: /health keeps answering while the import runs', async () => {
    const rows = 40_000;
    let healthAnswers = 0;
    let importing = true;
    const probing = (async () => {
      while (importing) {
        const health = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' });
        expect(health.statusCode).toBe(200);
        if (importing) healthAnswers += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const answer = await importCsv(malformedRows(rows));
      expect(answer.statusCode).toBe(200);
      expect(answer.json().data).toMatchObject({ totalRows: rows, invalidRows: rows, imported: 0 });
    } finally {
      importing = false;
      await probing;
    }
    // An import that held the event loop until it was done would let /health answer once at most.
    expect(healthAnswers).toBeGreaterThanOrEqual(3);
  });

  it('refuses a file over the row cap with the contracts’ message, whichever way it is sent', async () => {
    // Rows with an empty phone cell: cheap to read, so the test spends its time on the cap alone.
    const tooMany = ['phone,name', ...Array.from({ length: IMPORT_MAX_ROWS + 1 }, () => ',x')].join('\n');
    for (const answer of [
      await importCsv(tooMany),
      await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/services/${serviceId}/subscribers/import`,
        headers: bearer(token),
        payload: { csv: tooMany },
      }),
    ]) {
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ success: false, message: IMPORT_MESSAGES.tooManyRows });
    }
  });

  it('refuses a line too long to be a phone list’s', async () => {
    const answer = await importCsv(`phone\n0712345678\n${'9'.repeat(70_000)}\n`);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().message).toBe(IMPORT_MESSAGES.lineTooLong(3));
  });

  it('reads CRLF, CR and LF line endings and a byte-order mark, numbering lines as written', async () => {
    const answer = await importCsv('\uFEFFphone\r\n0712000001\r0712000002\n\nnot-a-number\r\n');
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data).toMatchObject({
      totalRows: 3,
      imported: 2,
      invalidRows: 1,
      errors: [{ line: 5, value: 'not-a-number' }],
    });
  });
});
