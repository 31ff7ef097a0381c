import { expect, it } from 'vitest';
import { bearer } from './support/factories.ts';
import { insertMessage } from './support/message-log-factories.ts';
import { createTwoTenantContext } from './support/two-tenants.ts';

/**
 * A message's reads (details, delivery reports, job status) answer 404 for one out of the caller's
 * scope. Only a request that fails validation is looked up before its 400, so another company's
 * message is a 404 whatever the query says.
 */
const { ctx, home, other } = await createTwoTenantContext();
const mine = await insertMessage(ctx.ownerDb, { companyId: home.company.id });
const theirs = await insertMessage(ctx.ownerDb, { companyId: other.company.id });
const token = home.staff.company_admin.token;

const get = (url: string) => ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(token) });

it('answers another company’s message with 404 before a bad query’s 400, and its own with the 400', async () => {
  for (const path of ['details?page=0', 'details?status=bogus', 'delivery-reports?limit=100000']) {
    const foreign = await get(`/messages/${theirs}/${path}`);
    expect(foreign.statusCode, foreign.body).toBe(404);
    expect(foreign.json()).toEqual({ success: false, message: 'Message not found', error: 'not_found' });
    const own = await get(`/messages/${mine}/${path}`);
    expect(own.statusCode, path).toBe(400);
    expect(own.json().error, path).toBe('validation_failed');
  }
  for (const path of ['details', 'delivery-reports', 'job-status'])
    expect((await get(`/messages/${theirs}/${path}`)).statusCode, path).toBe(404);
  expect((await get('/messages/abc/details?page=0')).statusCode).toBe(400);
});
