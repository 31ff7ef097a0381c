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
  type Hints,
  hostileSegment,
  type JsonSchema,
  queryFor,
  valueFor,
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

// A lagging event loop on a busy machine is no fault of a request: its 503 (load shedding, tested
// in its own file) would read as a 5xx here, so this app never sheds on lag.
const ctx = await createTestContext({ MAX_EVENT_LOOP_DELAY_MS: '0' });
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
await call('POST', '/callbacks/my-company/regenerate', home.staff.company_admin.token);
const realTokens = { subscription: '', dlr: '' };
/** The company's callback tokens as they are now (a fuzzed regenerate replaces them). */
async function readCallbackTokens() {
  const urls = await call('GET', '/callbacks/my-company', home.staff.company_admin.token);
  realTokens.subscription = String(urls.subscriptionCallbackUrl).split('/').at(-1) as string;
  realTokens.dlr = String(urls.dlrCallbackUrl).split('/').at(-1) as string;
}

/**
 * The rows an `:id` may name, one per table a route's guard looks up (`idOf`), never a caller's
 * own user or company: a delete or suspension there would lock the callers out of later runs.
 * Made again before each route's run when a request deleted one, so every route meets them.
 */
const makeTarget: Record<IdTable, () => Promise<number>> = {
  companies: async () => (await createCompany(ctx.ownerDb)).id,
  users: async () => (await createUser(ctx.ownerDb, { role: 'viewer', companyId: home.company.id })).id,
  services: async () => (await createService(ctx.ownerDb, home.company.id)).id,
  api_keys: async () =>
    (
      await call('POST', '/api-keys', home.staff.company_admin.token, {
        name: `Target ${Date.now()}`,
        scopes: ['messages:read'],
      })
    ).apiKey.id,
  webhook_endpoints: async () =>
    (
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
  subscribers: async () => {
    const { rows } = await sql<{ id: number }>`
      insert into subscribers (company_id, msisdn)
      values (${home.company.id}, ${`+254713${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`})
      returning id`.execute(ctx.ownerDb);
    return rows[0]!.id;
  },
  message_templates: async () => {
    const { rows } = await sql<{ id: number }>`
      insert into message_templates (company_id, name, body)
      values (${home.company.id}, ${`Fuzz target ${Math.random()}`}, 'Hi {{first_name|friend}}')
      returning id`.execute(ctx.ownerDb);
    return rows[0]!.id;
  },
  // A draft to the target service.
  messages: async () =>
    (
      await ctx.ownerDb
        .insertInto('messages')
        .values({
          company_id: home.company.id,
          service_id: targetIds.services,
          service_ids: [targetIds.services],
          content: 'Fuzz target',
          status: 'pending',
          direction: 'outbound',
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,
};
const targetIds = {} as Record<IdTable, number>;
// In this order: the message names the service.
const TARGET_TABLES: IdTable[] = [
  'companies',
  'users',
  'services',
  'api_keys',
  'webhook_endpoints',
  'subscribers',
  'message_templates',
  'messages',
];
for (const table of TARGET_TABLES) targetIds[table] = await makeTarget[table]();
const targetService = await ctx.ownerDb
  .selectFrom('services')
  .selectAll()
  .where('id', '=', targetIds.services)
  .executeTakeFirstOrThrow();

async function restoreTargets() {
  for (const table of TARGET_TABLES) {
    const { rows } = await sql`select 1 from ${sql.table(table)} where id = ${targetIds[table]}`.execute(
      ctx.ownerDb,
    );
    if (rows.length === 0) targetIds[table] = await makeTarget[table]();
  }
  await ctx.ownerDb
    .updateTable('services')
    .set({ status: 'active' })
    .where('id', '=', targetIds.services)
    .execute();
}
/** The target's id as it is when a request is generated (a restore may have replaced the row). */
const currentTarget = (table: IdTable) => fc.constant(table).map((name) => targetIds[name]);

/** What a field of that name needs to get past the handlers' own checks, so the fuzz reaches them. */
const kenyanMobile = fc.integer({ min: 0, max: 999_999 }).map((n) => `+254712${String(n).padStart(6, '0')}`);
const hints: Hints = {
  serviceId: currentTarget('services'),
  serviceIds: currentTarget('services').map((id) => [id]),
  companyId: fc.oneof(fc.constant(home.company.id), currentTarget('companies')),
  msisdn: kenyanMobile,
  phoneNumber: kenyanMobile,
  phone: kenyanMobile,
  to: fc.oneof(kenyanMobile, fc.array(kenyanMobile, { minLength: 1, maxLength: 3 })),
  email: fc.emailAddress(),
  password: fc.constant('S3cure-password!'),
  shortcode: fc.constantFrom('22550', '40404'),
  shortCode: fc.constantFrom('22550', '40404'),
  keyword: fc.stringMatching(/^[A-Z]{3,8}$/),
  url: fc.constantFrom('https://hooks.example.com/fuzz', 'http://127.0.0.1:1/x', 'https://[::1]/x'),
  message: fc.constantFrom('Hello from the fuzz', 'Ünïcödé 😀 text'),
  content: fc.constantFrom('Hello from the fuzz'),
  name: fc.string({ minLength: 1, maxLength: 20 }).map((text) => `Fuzz ${text}`),
  csv: fc.constantFrom('phone\n+254712000001\n0712000002\n', 'phone\nnot a number\n'),
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
 * out (POST /auth/logout is fuzzed too), and the callback tokens as they now are.
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
  await readCallbackTokens();
  await restoreTargets();
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

function segmentFor(route: ApiRoute, name: string, schema: JsonSchema | undefined): fc.Arbitrary<string> {
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
    return fc.oneof({ weight: 2, arbitrary: currentTarget(table).map(String) }, hostileSegment);
  // Another parameter (a callback type, a company id): its own schema's values, or hostile ones.
  const own = valueFor(schema, hints, name).map(
    (value) => encodeURIComponent(String(value).replace(/[\ud800-\udfff]/gu, '')) || '0',
  );
  return fc.oneof({ weight: 2, arbitrary: own }, hostileSegment);
}

type HostileRequest = {
  caller: Caller;
  forged: string;
  segments: Record<string, string>;
  query: string;
  body: WireBody;
  headers: Record<string, string>;
};

/**
 * The provider callbacks read their bodies themselves (Africa's Talking's shapes, JSON or a form),
 * so their OpenAPI operations describe none: these are the shapes they expect.
 */
const text = (values: string[]): JsonSchema => ({ type: 'string', enum: values });
const CALLBACK_BODIES: Record<string, JsonSchema> = {
  dlr: {
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 40 },
      status: text([
        'Sent',
        'Submitted',
        'Buffered',
        'Success',
        'Rejected',
        'Failed',
        'AbsentSubscriber',
        'Expired',
      ]),
      phoneNumber: { type: 'string' },
      failureReason: text(['UserInBlackList', 'InsufficientCredit', 'DeliveryFailure', '']),
      networkCode: { type: 'string' },
      retryCount: { type: 'string' },
    },
    required: ['id', 'status'],
  },
  subscription: {
    anyOf: [
      {
        type: 'object',
        properties: {
          phoneNumber: { type: 'string' },
          shortCode: { type: 'string' },
          keyword: { type: 'string' },
          updateType: text(['addition', 'deletion']),
        },
        required: ['phoneNumber', 'shortCode', 'keyword', 'updateType'],
      },
      {
        type: 'object',
        properties: { senderId: { type: 'string' }, phoneNumber: { type: 'string' } },
        required: ['senderId', 'phoneNumber'],
      },
      {
        type: 'object',
        properties: {
          from: { type: 'string' },
          to: { type: 'string' },
          text: { type: 'string' },
          id: { type: 'string' },
          date: { type: 'string', format: 'date-time' },
          linkId: { type: 'string' },
        },
        required: ['from', 'to', 'text', 'id'],
      },
    ],
  },
};
/** In a callback, the company's own short code and keyword (and STOP): what reaches its services. */
const callbackHints: Hints = {
  ...hints,
  shortCode: fc.constant(targetService.shortcode),
  to: fc.constant(targetService.shortcode),
  senderId: fc.constant(targetService.shortcode),
  keyword: fc.constantFrom(targetService.keyword, 'STOP'),
  text: fc.constantFrom(
    targetService.keyword,
    `JOIN ${targetService.keyword}`,
    'STOP',
    `STOP ${targetService.keyword}`,
    'hello',
  ),
  from: hints.phoneNumber as fc.Arbitrary<unknown>,
};

/**
 * Mostly callers the route admits (the route-access test covers refusals by role; the handlers are
 * what a hostile body must not break), and every other kind now and then.
 */
function callersOf(route: ApiRoute): fc.Arbitrary<Caller> {
  const access = route.access;
  const admitted = (caller: Caller) =>
    access?.kind === 'signed-in' &&
    (caller === 'api_key'
      ? access.apiKeyScopes.length > 0
      : (access.roles as readonly string[]).includes(caller));
  return fc.oneof(
    ...CALLERS.map((caller) => ({ weight: admitted(caller) ? 4 : 1, arbitrary: fc.constant(caller) })),
  );
}

function requestsFor(route: ApiRoute): fc.Arbitrary<HostileRequest> {
  const operation = operationOf(route);
  const callback = /\/callbacks\/(subscription|dlr)\//.exec(route.url)?.[1];
  const names = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
  const bodySchema = callback
    ? CALLBACK_BODIES[callback]
    : operation.requestBody?.content?.['application/json']?.schema;
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  const pathSchemas = Object.fromEntries(
    (operation.parameters ?? [])
      .filter((parameter) => parameter.in === 'path')
      .map((parameter) => [parameter.name, parameter.schema]),
  );
  return fc.record({
    caller: callersOf(route),
    forged: forgedAuthorization,
    segments: fc.record(
      Object.fromEntries(names.map((name) => [name, segmentFor(route, name, pathSchemas[name])])),
    ),
    query: queryFor(query, hints),
    body:
      route.method === 'GET' || route.method === 'DELETE'
        ? fc.oneof(fc.constant({}), wireBodyFor(bodySchema, hints))
        : wireBodyFor(bodySchema, callback ? callbackHints : hints),
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

/**
 * FUZZ_STATS=1: which answers each route gave, and its commonest refusal: are the shaped requests
 * getting past validation to the handlers?
 */
const answers = new Map<string, Map<string, number>>();
afterAll(() => {
  if (process.env.FUZZ_STATS !== '1') return;
  for (const [route, counts] of answers) {
    const byStatus = new Map<string, number>();
    for (const [answer, n] of counts)
      byStatus.set(answer.slice(0, 3), (byStatus.get(answer.slice(0, 3)) ?? 0) + n);
    const commonest = [...counts]
      .filter(([answer]) => answer.startsWith('4'))
      .sort(([, a], [, b]) => b - a)[0];
    console.log(
      `${route}: ${[...byStatus]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([status, n]) => `${status}×${n}`)
        .join(' ')}${commonest ? `; commonest refusal: ${commonest[0]}` : ''}`,
    );
  }
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
      // The tables after a refused request, which changed nothing: the next request's "before".
      let unchanged: Map<string, string> | undefined;
      await fc.assert(
        fc.asyncProperty(requestsFor(route), async (request) => {
          const before = unchanged ?? (await fingerprint());
          unchanged = undefined;
          const response = await send(route, request);
          const counts = answers.get(name) ?? new Map<string, number>();
          const answer = `${response.statusCode} ${response.statusCode >= 400 ? (response.json() as { message?: string }).message : ''}`;
          answers.set(name, counts.set(answer, (counts.get(answer) ?? 0) + 1));
          expect(response.statusCode, response.body.slice(0, 500)).toBeLessThan(500);
          if (response.statusCode >= 400) {
            expect(ZApiError.safeParse(response.json()).success, `the API's envelope: ${response.body}`).toBe(
              true,
            );
            const after = await fingerprint();
            expect(changedTables(before, after, name), 'tables a refused request changed').toEqual([]);
            unchanged = after;
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
