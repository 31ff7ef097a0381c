import { ALL_ROLES, ROLES, ROUTE_ROLES, type TRole } from '@sms/contracts/auth/roles';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../src/app.ts';
import { type ApiRoute, apiRoutesOf, type IdTable } from '../src/plugins/guards.ts';
import { bearer, createCompany, createTenantWithStaff, createUser } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext } from './support/test-app.ts';

// Generated from the app's own route table: every /api/v1 route, as every role, with no token,
// and as a user of another company, against what spec section 6 allows. A route added later is
// covered without anyone listing it here; one that declares no access, or whose declaration
// strays from the spec's rules below, fails.

const ctx = await createTestContext();
afterAll(() => ctx.close());
const home = await createTenantWithStaff(ctx.app, ctx.ownerDb);
const other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
const routes = apiRoutesOf(ctx.app).filter((route) => route.method !== 'HEAD');

const EDITORS: readonly TRole[] = ['system_admin', 'company_admin'];

/**
 * Spec section 6 (and the route table of section 2), as rules on paths: public, or the roles
 * that may call. First match wins; a route no rule covers fails until one is added here.
 */
const SPEC_RULES: [RegExp, 'public' | readonly TRole[] | ((method: string) => readonly TRole[])][] = [
  [/^\/health$/, 'public'],
  [/^\/auth\/(login|refresh|logout)$/, 'public'],
  [/^\/callbacks\/(subscription|dlr)\/:companyId\/:token$/, 'public'],
  [/^\/callbacks\/validate\//, 'public'],
  [/^\/auth\/profile$/, ALL_ROLES],
  [/^\/admin\//, ['system_admin']],
  // company_admin manages webhook URLs: their own (my-company) or, like platform staff, by id.
  [/^\/callbacks\/my-company(\/|$)/, ['company_admin']],
  [/^\/callbacks\/company\/:id(\/|$)/, ['system_admin', 'company_admin']],
  // A company admin's own company's API keys (issue 38): the console's, no key can call them.
  [/^\/api-keys(\/|$)/, ['company_admin']],
  // A company admin's own company's signed outbound webhooks (issue 38).
  [/^\/webhooks(\/|$)/, ['company_admin']],
  [/^\/(subscriptions\/|services\/:id\/(subscribe|unsubscribe|subscribers))/, ROUTE_ROLES.subscribers],
  // Content managers view services only.
  [/^\/services(\/|$)/, (method) => (method === 'GET' ? ROUTE_ROLES.services : EDITORS)],
  // Content managers view messaging only (section 1): they read messages but do not send or change them.
  [/^\/messages(\/|$)/, (method) => (method === 'GET' ? ROUTE_ROLES.messages : EDITORS)],
  // Templates (issue 38): used by whoever views messaging, changed by those who send.
  [/^\/templates(\/|$)/, (method) => (method === 'GET' ? ROUTE_ROLES.messages : EDITORS)],
  [/^\/dashboard(\/|$)/, ROUTE_ROLES.dashboard],
  [/^\/reports(\/|$)/, ROUTE_ROLES.reports],
  [/^\/search$/, ALL_ROLES],
];

const pathOf = (route: ApiRoute) => route.url.slice(API_PREFIX.length);

function specFor(route: ApiRoute) {
  const rule = SPEC_RULES.find(([pattern]) => pattern.test(pathOf(route)))?.[1];
  return typeof rule === 'function' ? rule(route.method) : rule;
}

/** A fresh row of the table in a company (for companies: the company itself). */
const fixtureOf: Record<IdTable, (companyId: number) => Promise<number>> = {
  services: async (companyId) => (await createService(ctx.ownerDb, companyId)).id,
  companies: async (companyId) => companyId,
  users: async (companyId) => (await createUser(ctx.ownerDb, { role: 'viewer', companyId })).id,
  api_keys: async (companyId) => {
    const creator = await createUser(ctx.ownerDb, { role: 'company_admin', companyId });
    const { rows } = await sql<{ id: number }>`
      insert into api_keys (company_id, name, prefix, key_hash, scopes, created_by)
      values (${companyId}, ${`Key ${creator.id}`}, ${`smsk_live_${creator.id}`}, ${Buffer.from([creator.id])},
              '{messages:read}', ${creator.id})
      returning id`.execute(ctx.ownerDb);
    return rows[0]!.id;
  },
  webhook_endpoints: async (companyId) => {
    const { rows } = await sql<{ id: number }>`
      insert into webhook_endpoints (company_id, url, event_types, secret_encrypted, secret_prefix)
      values (${companyId}, 'https://hooks.example.com/probe', '{message.sent}', 'v1.x.y.z', 'whsec_prob')
      returning id`.execute(ctx.ownerDb);
    return rows[0]!.id;
  },
  subscribers: async (companyId) => {
    const { rows } = await sql<{ id: number }>`
      insert into subscribers (company_id, msisdn) values (${companyId}, ${`+2547${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`})
      returning id`.execute(ctx.ownerDb);
    return rows[0]!.id;
  },
  message_templates: async (companyId) => {
    const { rows } = await sql<{ id: number }>`
      insert into message_templates (company_id, name, body)
      values (${companyId}, ${`Probe ${Math.random()}`}, 'Hi {{first_name|friend}}')
      returning id`.execute(ctx.ownerDb);
    return rows[0]!.id;
  },
  // A draft to one of the company's services, as POST /messages leaves it.
  messages: async (companyId) => {
    const service = await createService(ctx.ownerDb, companyId);
    const message = await ctx.ownerDb
      .insertInto('messages')
      .values({
        company_id: companyId,
        service_id: service.id,
        service_ids: [service.id],
        content: 'Access probe',
        status: 'pending',
        direction: 'outbound',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return message.id;
  },
};

async function stillThere(table: IdTable, id: number) {
  const { rows } = await sql`select 1 from ${sql.table(table)} where id = ${id}`.execute(ctx.ownerDb);
  return rows.length === 1;
}

function request(route: ApiRoute, token: string | null, id: number | null) {
  const url = route.url.replace(/:(\w+)/g, (_, name) => (name === 'id' && id !== null ? String(id) : '1'));
  return ctx.app.inject({
    method: route.method as 'GET',
    url,
    headers: token ? bearer(token) : {},
    ...(route.method === 'GET' ? {} : { payload: {} }),
  });
}

/** The target of an allowed call: a fresh row in the caller's company, or (system admin) in a fresh one. */
async function ownTarget(table: IdTable, role: TRole) {
  const companyId = role === 'system_admin' ? (await createCompany(ctx.ownerDb)).id : home.company.id;
  return fixtureOf[table](companyId);
}

it('every /api/v1 route declares who may call it, as the spec allows', () => {
  expect(routes.length).toBeGreaterThan(20);
  const problems: string[] = [];
  for (const route of routes) {
    const name = `${route.method} ${pathOf(route)}`;
    const { access } = route;
    const spec = specFor(route);
    if (!access) problems.push(`${name}: declares no access (guard(...) or config: publicRoute(...))`);
    else if (spec === undefined) problems.push(`${name}: no spec rule in route-access.test.ts covers it`);
    else if (access.kind === 'public' ? spec !== 'public' : spec === 'public')
      problems.push(
        `${name}: declared ${access.kind}, spec says ${spec === 'public' ? 'public' : 'signed-in'}`,
      );
    else if (
      access.kind === 'signed-in' &&
      [...access.roles].sort().join() !== [...(spec as TRole[])].sort().join()
    )
      problems.push(
        `${name}: declares ${access.roles.join(', ')}; spec allows ${(spec as TRole[]).join(', ')}`,
      );
    else if (access.kind === 'signed-in' && route.url.includes('/:id') && !access.idOf)
      problems.push(`${name}: takes an :id but declares no idOf (which table it names)`);
  }
  expect(problems).toEqual([]);
});

for (const route of routes.filter((candidate) => candidate.access)) {
  const { access } = route;
  if (!access) continue;
  describe(`${route.method} ${pathOf(route)}`, () => {
    if (access.kind === 'public') {
      it('answers without a token (never 401/403, never 5xx)', async () => {
        const response = await request(route, null, 1);
        expect([401, 403]).not.toContain(response.statusCode);
        expect(response.statusCode).toBeLessThan(500);
      });
      return;
    }
    const idOf = access.idOf;

    it('is 401 without a token', async () => {
      const id = idOf ? await ownTarget(idOf, 'company_admin') : null;
      expect((await request(route, null, id)).statusCode).toBe(401);
    });

    for (const role of ROLES) {
      const allowed = access.roles.includes(role);
      it(`${allowed ? 'serves' : 'is 403 for'} ${role}`, async () => {
        const id = idOf ? await ownTarget(idOf, role) : null;
        const response = await request(route, home.staff[role].token, id);
        if (!allowed) {
          expect(response.statusCode, response.body).toBe(403);
          return;
        }
        expect([401, 403], response.body).not.toContain(response.statusCode);
        expect(response.statusCode, response.body).toBeLessThan(500);
        if (idOf) expect(response.statusCode, response.body).not.toBe(404);
      });
    }

    if (idOf) {
      for (const role of access.roles.filter((candidate) => candidate !== 'system_admin')) {
        it(`is 404 for a ${role} of another company, which changes nothing`, async () => {
          const id = await fixtureOf[idOf](home.company.id);
          const response = await request(route, other.staff[role].token, id);
          expect(response.statusCode, response.body).toBe(404);
          expect(response.json().error).toBe('not_found');
          expect(await stillThere(idOf, id)).toBe(true);
        });
      }
    }
  });
}
