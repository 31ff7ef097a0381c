import { API_KEY_SCOPES } from '@sms/contracts/api-keys/api-key';
import { ZApiError } from '@sms/contracts/common/envelope';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { API_PREFIX } from '../src/app.ts';
import { type ApiRoute, apiRoutesOf, type IdTable } from '../src/plugins/guards.ts';
import { bearer, createCompany, createTenantWithStaff, createUser, signIn } from './support/factories.ts';
import {
  extraHeaders,
  forgedAuthorization,
  hostileSegment,
  type JsonSchema,
  queryFor,
  type WireBody,
  wireBodyFor,
} from './support/hostile-requests.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext } from './support/test-app.ts';

// Issue 36, item 8: random and malformed bodies, query strings, headers and path segments sent to
// every route of the app's own route table (a route added later is fuzzed without being listed),
// as every kind of caller, provider callbacks with their real URL token and with forged ones.
// Each request must get a 4xx or a success, never a 5xx or a crash, and a refused one (4xx) must
// change no row of any table. A fixed seed here (the same requests every run, a failure replays);
// `npm run fuzz` runs it longer: FUZZ_RUNS requests per route, FUZZ_SEED to vary or replay.

const SEED = Number(process.env.FUZZ_SEED ?? 3608);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);

const ctx = await createTestContext();
afterAll(() => ctx.close());
const home = await createTenantWithStaff(ctx.app, ctx.ownerDb);

async function call(method: string, url: string, token: string, payload?: object) {
  const response = await ctx.app.inject({
    method: method as 'GET',
    url: `${API_PREFIX}${url}`,
    headers: bearer(token),
    payload,
  });
  if (response.statusCode >= 300)
    throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json().data;
}

const apiKey: string = (
  await call('POST', '/api-keys', home.staff.company_admin.token, {
    name: 'Fuzz key',
    scopes: [...API_KEY_SCOPES],
  })
).key;
const callbackUrls = await call('POST', '/callbacks/my-company/regenerate', home.staff.company_admin.token);
const callbackToken = (url: string) => url.split('/').at(-1) as string;
const realTokens = {
  subscription: callbackToken(callbackUrls.subscriptionCallbackUrl),
  dlr: callbackToken(callbackUrls.dlrCallbackUrl),
};

/**
 * The rows an `:id` may name, one per table a route's guard looks up (`idOf`), never a caller's
 * own user or company: a delete or suspension there would lock the callers out of later runs.
 */
const targetService = await createService(ctx.ownerDb, home.company.id);
const targetIds: Record<IdTable, number> = {
  companies: (await createCompany(ctx.ownerDb)).id,
  users: (await createUser(ctx.ownerDb, { role: 'viewer', companyId: home.company.id })).id,
  services: targetService.id,
  api_keys: (
    await call('POST', '/api-keys', home.staff.company_admin.token, {
      name: 'Target',
      scopes: ['messages:read'],
    })
  ).apiKey.id,
  webhook_endpoints: (
    await ctx.ownerDb
      .insertInto('webhook_endpoints')
      .values({
        company_id: home.company.id,
        url: 'https://hooks.example.com/fuzz',
        event_types: ['message.sent'],
        secret_encrypted: 'v1.x.y.z',
        secret_prefix: 'whsec_fuzz',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id,
  messages: (
    await ctx.ownerDb
      .insertInto('messages')
      .values({
        company_id: home.company.id,
        service_id: targetService.id,
        service_ids: [targetService.id],
        content: 'Fuzz target',
        status: 'pending',
        direction: 'outbound',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id,
};

/**
 * A cheap fingerprint of every table: its row count and a hash of its rows (any insert, update or
 * delete shows), read as the owner, so row-level security hides nothing.
 */
const tables = (
  await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(ctx.ownerDb)
).rows.map((row) => row.name);
/** Columns that record use, not data: an API key's last use is stamped even when its request is refused. */
const USE_STAMPS: Record<string, string[]> = { api_keys: ['last_used_at'] };
const fingerprintQuery = tables
  .map((table) => {
    const row = `to_jsonb(t) - '{${(USE_STAMPS[table] ?? []).join(',')}}'::text[]`;
    return `select '${table}' as name, count(*)::text || ':' || coalesce(sum(hashtext((${row})::text)::bigint), 0)::text as print from "${table}" t`;
  })
  .join(' union all ');

/**
 * What a refused request records on purpose: a failed sign-in counts towards the login throttle
 * (by route, a pattern on "METHOD /path").
 */
const RECORDED_ON_REFUSAL: Record<string, readonly string[]> = { '^POST /auth/login$': ['login_throttle'] };

async function fingerprint() {
  const { rows } = await sql.raw<{ name: string; print: string }>(fingerprintQuery).execute(ctx.ownerDb);
  return new Map(rows.map((row) => [row.name, row.print]));
}

function changedTables(before: Map<string, string>, after: Map<string, string>, route: string) {
  const allowed = Object.entries(RECORDED_ON_REFUSAL)
    .filter(([pattern]) => new RegExp(pattern).test(route))
    .flatMap(([, names]) => names);
  return tables.filter((table) => before.get(table) !== after.get(table) && !allowed.includes(table));
}

/** Callers: each role signed in, an API key with every scope, no credentials, and forged ones. */
type Caller = 'system_admin' | 'company_admin' | 'content_manager' | 'viewer' | 'api_key' | 'none' | 'forged';
const CALLERS: Caller[] = [
  'system_admin',
  'company_admin',
  'content_manager',
  'viewer',
  'api_key',
  'none',
  'forged',
];

/**
 * The callers as they began: their company active, each signed in again if a request signed them
 * out (POST /auth/logout is fuzzed too).
 */
async function ensureSignedIn() {
  await ctx.ownerDb
    .updateTable('companies')
    .set({ status: 'active' })
    .where('id', '=', home.company.id)
    .execute();
  for (const role of ['system_admin', 'company_admin', 'content_manager', 'viewer'] as const) {
    const staff = home.staff[role];
    const probe = await ctx.app.inject({
      method: 'GET',
      url: `${API_PREFIX}/auth/profile`,
      headers: bearer(staff.token),
    });
    if (probe.statusCode !== 200) staff.token = (await signIn(ctx.app, staff.email)).accessToken;
  }
}

/** The route's OpenAPI operation (its zod schemas as JSON Schema): the shapes to fuzz around. */
const openApi = (
  ctx.app as unknown as { swagger: () => { paths: Record<string, Record<string, Operation>> } }
).swagger();
type Operation = {
  parameters?: { in: string; name: string; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
};
function operationOf(route: ApiRoute): Operation {
  const path = route.url.replace(/:(\w+)/g, '{$1}');
  return openApi.paths[path]?.[route.method.toLowerCase()] ?? {};
}

function segmentFor(route: ApiRoute, name: string): fc.Arbitrary<string> {
  const callback = /\/callbacks\/(subscription|dlr)\//.exec(route.url)?.[1] as
    | keyof typeof realTokens
    | undefined;
  if (callback && name === 'companyId')
    return fc.oneof({ weight: 4, arbitrary: fc.constant(String(home.company.id)) }, hostileSegment);
  if (callback && name === 'token')
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant(realTokens[callback]) },
      { weight: 1, arbitrary: fc.constant(realTokens[callback === 'dlr' ? 'subscription' : 'dlr']) },
      { weight: 1, arbitrary: fc.constant(`${realTokens[callback].slice(0, -1)}x`) },
      hostileSegment,
    );
  const table = route.access?.kind === 'signed-in' ? route.access.idOf : null;
  if (name === 'id' && table)
    return fc.oneof({ weight: 2, arbitrary: fc.constant(String(targetIds[table])) }, hostileSegment);
  return hostileSegment;
}

type HostileRequest = {
  caller: Caller;
  forged: string;
  segments: Record<string, string>;
  query: string;
  body: WireBody;
  headers: Record<string, string>;
};

function requestsFor(route: ApiRoute): fc.Arbitrary<HostileRequest> {
  const operation = operationOf(route);
  const names = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  return fc.record({
    caller: fc.constantFrom(...CALLERS),
    forged: forgedAuthorization,
    segments: fc.record(Object.fromEntries(names.map((name) => [name, segmentFor(route, name)]))),
    query: queryFor(query),
    body:
      route.method === 'GET' || route.method === 'DELETE'
        ? fc.oneof(fc.constant({}), wireBodyFor(bodySchema))
        : wireBodyFor(bodySchema),
    headers: extraHeaders,
  });
}

function authorizationOf(request: HostileRequest) {
  switch (request.caller) {
    case 'none':
      return {};
    case 'forged':
      return { authorization: request.forged };
    case 'api_key':
      return bearer(apiKey);
    default:
      return bearer(home.staff[request.caller].token);
  }
}

async function send(route: ApiRoute, request: HostileRequest) {
  const path = route.url.replace(/:(\w+)/g, (_, name: string) => request.segments[name] ?? '1');
  return ctx.app.inject({
    method: route.method as 'GET',
    url: request.query ? `${path}?${request.query}` : path,
    headers: {
      ...request.headers,
      ...(request.body.contentType ? { 'content-type': request.body.contentType } : {}),
      ...authorizationOf(request),
    },
    ...(request.body.payload !== undefined ? { payload: request.body.payload } : {}),
  });
}

/** FUZZ_STATS=1: which answers each route gave (are the shaped requests getting past validation?). */
const answers = new Map<string, Map<number, number>>();
afterAll(() => {
  if (process.env.FUZZ_STATS !== '1') return;
  for (const [route, counts] of answers)
    console.log(
      `${route}: ${[...counts]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ')}`,
    );
});

const routes = apiRoutesOf(ctx.app).filter((route) => route.method !== 'HEAD');

it('fuzzes every route of the table, callbacks included', () => {
  expect(routes.length).toBeGreaterThan(40);
  expect(routes.map((route) => route.url)).toContain(`${API_PREFIX}/callbacks/dlr/:companyId/:token`);
  expect(routes.map((route) => route.url)).toContain(
    `${API_PREFIX}/callbacks/subscription/:companyId/:token`,
  );
});

for (const route of routes) {
  const name = `${route.method} ${route.url.slice(API_PREFIX.length)}`;
  it(
    `${name}: no 5xx, and a refused request changes nothing`,
    async () => {
      await ensureSignedIn();
      await fc.assert(
        fc.asyncProperty(requestsFor(route), async (request) => {
          const before = await fingerprint();
          const response = await send(route, request);
          const counts = answers.get(name) ?? new Map<number, number>();
          answers.set(name, counts.set(response.statusCode, (counts.get(response.statusCode) ?? 0) + 1));
          expect(response.statusCode, response.body.slice(0, 500)).toBeLessThan(500);
          if (response.statusCode >= 400) {
            expect(ZApiError.safeParse(response.json()).success, `the API's envelope: ${response.body}`).toBe(
              true,
            );
            expect(
              changedTables(before, await fingerprint(), name),
              'tables a refused request changed',
            ).toEqual([]);
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: process.env.FUZZ_SHRINK !== '1' },
      );
    },
    Math.max(30_000, RUNS * 1_000),
  );
}

it('the app still answers after all of it', async () => {
  const health = await ctx.app.inject({ method: 'GET', url: `${API_PREFIX}/health` });
  expect(health.statusCode).toBe(200);
});
