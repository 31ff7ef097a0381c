import { MERGE_FIELD_MESSAGES } from '@sms/contracts/templates/merge-fields';
import { TEMPLATE_MESSAGES } from '@sms/contracts/templates/template';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createCompany, createTenantWithStaff, createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

type Tenant = Awaited<ReturnType<typeof createTenantWithStaff>>;
const as = (tenant: Tenant, role: 'company_admin' | 'content_manager' | 'viewer' = 'company_admin') =>
  bearer(tenant.staff[role].token);
const call = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: object,
) => ctx.app.inject({ method, url: `/api/v1${url}`, headers, payload });

describe('templates of a company', () => {
  it('are saved, listed by name with their merge fields, changed and deleted, each audited', async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const created = await call('POST', '/templates', as(tenant), {
      name: 'Welcome',
      body: 'Hi {{first_name|friend}}, reply {{ language }} for help',
    });
    expect(created.statusCode, created.body).toBe(201);
    const template = created.json().data.template;
    expect(template).toMatchObject({
      name: 'Welcome',
      fields: ['first_name', 'language'],
      companyId: tenant.company.id,
      company: { name: tenant.company.name },
    });
    await call('POST', '/templates', as(tenant), { name: 'Alert', body: 'Service down, back soon' });

    const listed = await call('GET', '/templates', as(tenant, 'content_manager'));
    expect(listed.statusCode).toBe(200);
    expect(
      listed.json().data.templates.map((row: { name: string; fields: string[] }) => [row.name, row.fields]),
    ).toEqual([
      ['Alert', []],
      ['Welcome', ['first_name', 'language']],
    ]);

    const changed = await call('PUT', `/templates/${template.id}`, as(tenant), {
      name: 'Welcome back',
      body: 'Welcome back {{first_name}}',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data.template).toMatchObject({ name: 'Welcome back', fields: ['first_name'] });

    const deleted = await call('DELETE', `/templates/${template.id}`, as(tenant));
    expect(deleted.json().data).toEqual({ id: template.id, deleted: true });
    const names = (await call('GET', '/templates', as(tenant)))
      .json()
      .data.templates.map((row: { name: string }) => row.name);
    expect(names).toEqual(['Alert']);
    const audits = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select('action')
      .where('entity', '=', 'TEMPLATE')
      .where('entity_id', '=', String(template.id))
      .orderBy('id')
      .execute();
    expect(audits.map((row) => row.action)).toEqual(['CREATE', 'UPDATE', 'DELETE']);
  });

  it('refuses a malformed placeholder, a text over 160 characters, a blank name and a taken name (any case)', async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const bad = await call('POST', '/templates', as(tenant), { name: 'Bad', body: 'Hi {{First Name}}' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain(MERGE_FIELD_MESSAGES.placeholderInvalid('{{First Name}}'));
    const open = await call('POST', '/templates', as(tenant), { name: 'Open', body: 'Hi {{first_name' });
    expect(open.statusCode).toBe(400);
    expect(open.json().message).toContain(MERGE_FIELD_MESSAGES.unclosed);
    const long = await call('POST', '/templates', as(tenant), { name: 'Long', body: 'x'.repeat(161) });
    expect(long.statusCode).toBe(400);
    expect(long.json().message).toContain(TEMPLATE_MESSAGES.bodyTooLong);
    const blank = await call('POST', '/templates', as(tenant), { name: '  ', body: 'Hello' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toContain(TEMPLATE_MESSAGES.nameRequired);

    expect((await call('POST', '/templates', as(tenant), { name: 'Promo', body: 'Sale!' })).statusCode).toBe(
      201,
    );
    const taken = await call('POST', '/templates', as(tenant), { name: 'PROMO', body: 'Sale again' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toBe(TEMPLATE_MESSAGES.duplicateName('PROMO'));
    const names = (await call('GET', '/templates', as(tenant)))
      .json()
      .data.templates.map((row: { name: string }) => row.name);
    expect(names).toEqual(['Promo']);
  });

  it("keeps companies apart: another company's template is not listed and reads as not found", async () => {
    const mine = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const theirs = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const their = (await call('POST', '/templates', as(theirs), { name: 'Theirs', body: 'Secret' })).json()
      .data.template;
    expect((await call('GET', '/templates', as(mine))).json().data.templates).toEqual([]);
    const put = await call('PUT', `/templates/${their.id}`, as(mine), { name: 'Mine', body: 'Taken' });
    expect(put.statusCode).toBe(404);
    expect((await call('DELETE', `/templates/${their.id}`, as(mine))).statusCode).toBe(404);
    expect((await call('GET', '/templates', as(theirs))).json().data.templates[0]).toMatchObject({
      name: 'Theirs',
      body: 'Secret',
    });
  });

  it('lets content managers use templates but not change them; viewers do not see them', async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const refused = await call('POST', '/templates', as(tenant, 'content_manager'), {
      name: 'Mine',
      body: 'Hi',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe(TEMPLATE_MESSAGES.contentManagerEdit);
    expect((await call('GET', '/templates', as(tenant, 'viewer'))).statusCode).toBe(403);
  });

  it("makes a system admin name the company, and lists every company's", async () => {
    const company = await createCompany(ctx.ownerDb);
    const admin = await createUser(ctx.ownerDb, { role: 'system_admin' });
    const headers = bearer((await signIn(ctx.app, admin.email)).accessToken);
    const missing = await call('POST', '/templates', headers, { name: 'Platform', body: 'Hello' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe(TEMPLATE_MESSAGES.companyRequired);
    const made = await call('POST', '/templates', headers, {
      name: 'Platform',
      body: 'Hello',
      companyId: company.id,
    });
    expect(made.statusCode, made.body).toBe(201);
    const listed = await call('GET', `/templates?companyId=${company.id}`, headers);
    expect(listed.json().data.templates).toHaveLength(1);
    expect(listed.json().data.templates[0]).toMatchObject({ name: 'Platform', companyId: company.id });
  });
});

describe('OpenAPI', () => {
  it('documents the template, merge-field and subscriber-field routes, and the placeholder grammar', async () => {
    const spec = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    for (const [path, method, tag] of [
      ['/api/v1/templates', 'get', 'templates'],
      ['/api/v1/templates', 'post', 'templates'],
      ['/api/v1/templates/{id}', 'put', 'templates'],
      ['/api/v1/templates/{id}', 'delete', 'templates'],
      ['/api/v1/messages/merge-fields', 'get', 'messages'],
      ['/api/v1/subscriptions/subscribers/{id}/attributes', 'put', 'subscribers'],
    ] as const)
      expect(spec.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual([tag]);
    const tag = spec.tags.find((entry: { name: string }) => entry.name === 'templates');
    expect(tag.description).toContain('{{first_name|friend}}');
    expect(
      spec.paths['/api/v1/templates'].post.requestBody.content['application/json'].schema.properties.body,
    ).toBeDefined();
  });
});
