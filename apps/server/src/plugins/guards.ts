import { API_KEY_MESSAGES, API_KEY_SCOPE_LABELS, type TApiKeyScope } from '@sms/contracts/api-keys/api-key';
import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { ALL_ROLES, isRoleAllowed, type TRole } from '@sms/contracts/auth/roles';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteOptions,
} from 'fastify';
import type { AppDeps } from '../app-deps.ts';
import { inActorTransaction } from '../db/actor-transaction.ts';
import { AppError, notFound } from '../errors.ts';
import { isRowVisible } from '../modules/auth/session.repository.ts';
import { tenantOf } from '../request-context.ts';
import { authenticate, contextOf } from './authenticate.ts';
import { isRateLimitHook } from './rate-limits.ts';

/** Tenant-owned tables a route's `:id` can name, and what a missing one is called in its 404. */
const ID_TABLES = {
  services: 'Service',
  companies: 'Company',
  users: 'User',
  messages: 'Message',
  api_keys: 'API key',
  webhook_endpoints: 'Webhook endpoint',
  message_templates: 'Template',
  subscribers: 'Subscriber',
} as const;
export type IdTable = keyof typeof ID_TABLES;
const COMPANY_KEYED = new Set<IdTable>([
  'services',
  'messages',
  'api_keys',
  'webhook_endpoints',
  'message_templates',
  'subscribers',
]);

/**
 * Who may call a route, declared where the route is defined and enforced from that same
 * declaration (so the two cannot drift), and listed for the generated access test.
 * - public: no sign-in (sign-in itself, health, provider callbacks whose URL token is the proof).
 * - signed-in: a valid access token and one of `roles` (403 otherwise, with the spec's own words
 *   for a role in `refusals`); with `idOf`, the `:id` must name a row of that table the actor's
 *   scope can see (row-level security decides), else 404, so another company's id reads as missing.
 */
export type RouteAccess =
  | { kind: 'public'; reason: string }
  | {
      kind: 'signed-in';
      roles: readonly TRole[];
      refusals: Partial<Record<TRole, string>>;
      idOf: IdTable | null;
      /** The API key scopes that open the route (any one of them); none: console only, keys get 403. */
      apiKeyScopes: readonly TApiKeyScope[];
    };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

const ACCESS = Symbol('route access');
const VISIBLE_BEFORE_400 = Symbol('visible before a 400');
type Check =
  | ((request: FastifyRequest, reply: FastifyReply) => Promise<void>)
  | ((request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void);
export type Guard = Check[] & {
  [ACCESS]: RouteAccess;
  [VISIBLE_BEFORE_400]: Check | undefined;
};

/**
 * The checks of a protected route, carrying their own declaration: `preHandler: guard(deps, roles)`
 * (or onRequest). Whichever hook a route names, the checks run first thing on the request, before
 * its body is read or validated: 401, 403 and 404 come before 400 (see installRouteAccess).
 */
export function guard(
  deps: AppDeps,
  roles: TRole | readonly TRole[] = ALL_ROLES,
  options: {
    idOf?: IdTable;
    /** The handler's own read answers 404 for an `:id` out of scope: the guard looks it up only before a 400. */
    idFoundByHandler?: boolean;
    refusals?: Partial<Record<TRole, string>>;
    /** API key scopes that open the route too (modules/api-keys); without, keys are refused. */
    apiKeyScopes?: readonly TApiKeyScope[];
  } = {},
): Guard {
  const access: RouteAccess = {
    kind: 'signed-in',
    roles: typeof roles === 'string' ? [roles] : roles,
    refusals: options.refusals ?? {},
    idOf: options.idOf ?? null,
    apiKeyScopes: options.apiKeyScopes ?? [],
  };
  const checks: Check[] = [
    authenticate(deps),
    requireApiKeyScope(access.apiKeyScopes),
    requireRoles(access.roles, access.refusals),
  ];
  const visibleId = options.idOf ? requireVisibleId(deps, options.idOf) : undefined;
  if (visibleId && !options.idFoundByHandler) checks.push(visibleId);
  const beforeBadRequest =
    visibleId && options.idFoundByHandler ? visibleBeforeBadRequest(visibleId) : undefined;
  return Object.assign(checks, { [ACCESS]: access, [VISIBLE_BEFORE_400]: beforeBadRequest });
}

/**
 * For a route whose handler finds its `:id` itself (one statement where the guard's lookup and the
 * read were two): the request's validation is attached instead of answered, and this preHandler
 * answers it, after the lookup the guard skipped, so an `:id` out of scope is still a 404 before a 400.
 * Callback-style (done), as a valid request, nearly every one, waits for nothing here.
 */
function visibleBeforeBadRequest(requireVisible: (request: FastifyRequest) => Promise<void>): Check {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const invalid = request.validationError;
    if (!invalid) return done();
    requireVisible(request).then(() => done(invalid), done);
  };
}

/** The `config` of a route anyone may call; the reason says why it needs no sign-in. */
export function publicRoute(reason: string): { access: RouteAccess } {
  return { access: { kind: 'public', reason } };
}

/**
 * preHandler after authenticate: 403 unless the actor has one of the roles. A callback-style hook
 * (done): it waits for nothing, and an async hook costs Fastify a promise and its settling per request.
 */
export function requireRoles(
  allowed: TRole | readonly TRole[],
  refusals: Partial<Record<TRole, string>> = {},
) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const role = request.actor?.role;
    if (!role || !isRoleAllowed(role, allowed))
      return done(new AppError('forbidden', (role && refusals[role]) || AUTH_MESSAGES.forbidden));
    done();
  };
}

/**
 * 403 for a request made with an API key unless the key holds one of the route's scopes (a route
 * with none is the console's own: sign-in, users, companies, the keys themselves). Callback-style.
 */
function requireApiKeyScope(scopes: readonly TApiKeyScope[]) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const key = request.actor?.apiKey;
    if (!key || scopes.some((scope) => key.scopes.includes(scope))) return done();
    const needed = scopes[0];
    done(
      new AppError(
        'forbidden',
        needed ? API_KEY_MESSAGES.scopeMissing(API_KEY_SCOPE_LABELS[needed]) : API_KEY_MESSAGES.consoleOnly,
      ),
    );
  };
}

/** 404 unless `:id` names a row the actor's scope sees: one lookup bound like the request's own work. */
function requireVisibleId(deps: AppDeps, table: IdTable) {
  return async (request: FastifyRequest) => {
    // Before validation the raw text; after it (a check made before a 400) the params schema's number.
    const given = (request.params as { id?: unknown } | undefined)?.id;
    const raw = typeof given === 'number' ? String(given) : given;
    // Not a well-formed id: the route's params schema answers it with a 400.
    if (typeof raw !== 'string' || !/^[1-9]\d{0,14}$/.test(raw)) return;
    const ctx = contextOf(request);
    // Tenant tables are keyed by (company_id, id): naming the company lets the key serve.
    const companyId = COMPANY_KEYED.has(table) ? tenantOf(ctx.actor) : null;
    // The same lookup by key, under row-level security, its plan kept for the connection instead
    // of made on every call (a read forces custom plans).
    const visible = await inActorTransaction(deps.db, ctx, (trx) =>
      isRowVisible(trx, table, Number(raw), companyId),
    );
    if (!visible) throw notFound(ID_TABLES[table]);
  };
}

export type ApiRoute = {
  method: string;
  url: string;
  access: RouteAccess | undefined;
  /** The route's response schemas by status (zod), for the test that each has a compiled serializer. */
  responses: Record<string, unknown>;
};

// Keyed by the HTTP server, which the app and its route plugins share.
const routeTables = new WeakMap<object, ApiRoute[]>();

/** Every API route with its declared access (undefined: declared nowhere), in registration order. */
export function apiRoutesOf(app: FastifyInstance): ApiRoute[] {
  return routeTables.get(app.server) ?? [];
}

const isGuard = (value: unknown): value is Guard =>
  Array.isArray(value) && (value as Partial<Guard>)[ACCESS] !== undefined;

/**
 * Applies every route's declared access and records it. Call once, before the routes register:
 * a route's guard moves to the front of its onRequest hooks, so a request that may not reach the
 * route is refused before its body is parsed or validated.
 */
export function installRouteAccess(api: FastifyInstance) {
  const table: ApiRoute[] = [];
  routeTables.set(api.server, table);
  api.addHook('onRoute', (route: RouteOptions) => {
    let access = route.config?.access;
    for (const hook of ['preHandler', 'onRequest'] as const) {
      const value = route[hook];
      if (!isGuard(value)) continue;
      access = value[ACCESS];
      route[hook] = hook === 'onRequest' ? value : undefined;
      if (hook === 'preHandler') {
        // After the rate limits: a bad or revoked token is counted against its client like any request.
        const others = toList(route.onRequest);
        const limits = others.filter(isRateLimitHook);
        route.onRequest = [...limits, ...value, ...others.filter((other) => !isRateLimitHook(other))];
      }
      const visibleBefore400 = value[VISIBLE_BEFORE_400];
      if (visibleBefore400) {
        route.attachValidation = true;
        route.preHandler = [visibleBefore400, ...toList(route.preHandler)];
      }
    }
    route.config = { ...route.config, access };
    if (access?.kind === 'signed-in' && access.apiKeyScopes.length > 0)
      documentApiKeyAccess(route, access.apiKeyScopes);
    const responses = (route.schema?.response ?? {}) as Record<string, unknown>;
    for (const method of toList(route.method))
      table.push({ method: String(method), url: route.url, access, responses });
  });
}

/** OpenAPI: the route accepts an API key too (the apiKey scheme, app.ts), and which scopes open it. */
function documentApiKeyAccess(route: RouteOptions, scopes: readonly TApiKeyScope[]) {
  const schema = (route.schema ?? {}) as { description?: string; security?: unknown };
  const names = scopes.map((scope) => `${scope} (${API_KEY_SCOPE_LABELS[scope]})`).join(' or ');
  route.schema = {
    ...schema,
    security: [{ bearerAuth: [] }, { apiKey: [] }],
    description: `${schema.description ?? ''} API keys: scope ${names}.`.trim(),
  };
}

function toList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
