import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { IMPORT_MESSAGES } from '@sms/contracts/subscribers/import-subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MULTIPART_LIMITS } from '../src/plugins/request-guards.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A multipart import whose framing is broken is the client's mistake: a 400 (413 for too many
 * parts) in the API's envelope, and nothing imported.
 */
let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
let service: Awaited<ReturnType<typeof createService>>;
beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  service = await createService(ctx.ownerDb, tenant.company.id);
});
afterAll(() => ctx.close());

const boundary = '----sms-malformed';
const fileField = (content: string) =>
  `Content-Disposition: form-data; name="file"; filename="numbers.csv"\r\nContent-Type: text/csv\r\n\r\n${content}`;
const wellFormed = (parts: string[]) =>
  `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;

const importWith = (contentType: string, payload: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/v1/services/${service.id}/subscribers/import`,
    headers: { ...bearer(tenant.staff.company_admin.token), 'content-type': contentType },
    payload,
  });

async function subscriptionCount() {
  const row = await ctx.ownerDb
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('service_id', '=', service.id)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('a malformed multipart import', () => {
  const numbers = '+254712300001\n+254712300002\n';
  const malformed = IMPORT_MESSAGES.malformedUpload;
  const cases: Array<[string, string, string, string]> = [
    ['no boundary', 'multipart/form-data', wellFormed([fileField(numbers)]), malformed],
    ['an empty boundary', 'multipart/form-data; boundary=', wellFormed([fileField(numbers)]), malformed],
    [
      'an empty quoted boundary',
      'multipart/form-data; boundary=""',
      wellFormed([fileField(numbers)]),
      malformed,
    ],
    ['a body without its boundary', `multipart/form-data; boundary=${boundary}`, numbers, malformed],
    [
      'a truncated body',
      `multipart/form-data; boundary=${boundary}`,
      `--${boundary}\r\n${fileField(numbers)}`,
      malformed,
    ],
    [
      'a body cut inside the part headers',
      `multipart/form-data; boundary=${boundary}`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filen`,
      malformed,
    ],
    // Busboy reads an empty body as an empty form: no file in it.
    ['an empty body', `multipart/form-data; boundary=${boundary}`, '', IMPORT_MESSAGES.fileRequired],
  ];

  it.each(cases)(
    'with %s is a 400 in the envelope and imports nothing',
    async (_name, contentType, body, message) => {
      const answer = await importWith(contentType, body);
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json()).toEqual({ success: false, message, error: 'bad_request' });
      expect(await subscriptionCount()).toBe(0);
    },
  );

  it('with more parts than allowed is a 413 that says so, and imports nothing', async () => {
    const fields = Array.from(
      { length: MULTIPART_LIMITS.parts + 1 },
      (_, i) => `Content-Disposition: form-data; name="note${i}"\r\n\r\nx`,
    );
    const answer = await importWith(
      `multipart/form-data; boundary=${boundary}`,
      wellFormed([...fields, fileField(numbers)]),
    );
    expect(answer.statusCode, answer.body).toBe(413);
    expect(answer.json()).toEqual({
      success: false,
      message: REQUEST_LIMIT_MESSAGES.tooManyParts,
      error: 'bad_request',
    });
    expect(await subscriptionCount()).toBe(0);
  });

  it('still imports a well-formed file', async () => {
    const answer = await importWith(
      `multipart/form-data; boundary=${boundary}`,
      wellFormed([fileField(numbers)]),
    );
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data).toMatchObject({ totalRows: 2, imported: 2 });
    // The refusals above are of the framing alone: the same file, framed right, is imported.
    expect(await subscriptionCount()).toBe(2);
  });
});
