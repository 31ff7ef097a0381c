import { normalizeIP } from '@fastify/rate-limit';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimits } from '../config.ts';
import { AppError } from '../errors.ts';

const MINUTE = 60_000;

/** Provider callbacks (subscription now, delivery reports next) are limited per company, not per sender. */
const PROVIDER_CALLBACK = /\/callbacks\/(subscription|dlr)\/:companyId\/:token$/;

/** The company a provider callback names; one bucket for every malformed id. */
function companyKeyOf(request: FastifyRequest) {
  const companyId = (request.params as { companyId?: string } | undefined)?.companyId ?? '';
  return /^\d{1,15}$/.test(companyId) ? `company:${Number(companyId)}` : 'company:invalid';
}

/** The stricter limit a route gets instead of the global one, if any (provider callbacks: see companyLimit). */
export function rateLimitPolicyFor(url: string, limits: RateLimits): RateLimitPolicy | undefined {
  if (url.endsWith('/auth/login') || url.endsWith('/auth/refresh'))
    return { max: limits.authPerMinute, timeWindow: MINUTE };
  if (url.includes('/callbacks/validate/')) return { max: limits.validatePerMinute, timeWindow: MINUTE };
  return undefined;
}

/** Companies a provider-callback route keeps a window for; past that the oldest are forgotten. */
const COMPANY_WINDOWS = 10_000;

/**
 * A provider callback's limit: at most `max` requests per company per one-second window, the same
 * rule, answers and headers as @fastify/rate-limit's local store (a fixed window from the first
 * request, x-ratelimit-limit/-remaining/-reset, a 429 with Retry-After), one window per route. Its
 * own synchronous hook rather than the plugin's: the delivery-report callback is the busiest route
 * (thousands a second), and the plugin's handler takes several promise hops per request.
 */
export function companyLimit(max: number, windowMs = 1000) {
  const windows = new Map<string, { count: number; startedAt: number }>();
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const key = companyKeyOf(request);
    const now = Date.now();
    let window = windows.get(key);
    if (!window) {
      if (windows.size >= COMPANY_WINDOWS) forgetOldest(windows, now - windowMs);
      window = { count: 0, startedAt: now };
      windows.set(key, window);
    } else if (window.startedAt + windowMs <= now) {
      window.count = 0;
      window.startedAt = now;
    }
    window.count++;
    const resetSeconds = Math.ceil((window.startedAt + windowMs - now) / 1000);
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - window.count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (window.count <= max) return done();
    reply.header('retry-after', resetSeconds);
    done(new AppError('rate_limited', REQUEST_LIMIT_MESSAGES.tooManyRequests(Math.max(1, resetSeconds))));
  };
}

/** Drops the windows that are over; if none is, the oldest one. */
function forgetOldest(windows: Map<string, { startedAt: number }>, overBefore: number) {
  for (const [key, window] of windows) if (window.startedAt <= overBefore) windows.delete(key);
  if (windows.size >= COMPANY_WINDOWS) windows.delete(windows.keys().next().value as string);
}

/** A route's own limit instead of the global one (see rateLimitPolicyFor). */
export type RateLimitPolicy = { max: number; timeWindow: number };

type Hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** The limits' hooks, which run before every other onRequest hook of a route (its guard included: installRouteAccess). */
const RATE_LIMIT_HOOKS = new WeakSet<object>();
export const isRateLimitHook = (hook: unknown) => typeof hook === 'function' && RATE_LIMIT_HOOKS.has(hook);
function rateLimitHook<T extends object>(hook: T): T {
  RATE_LIMIT_HOOKS.add(hook);
  return hook;
}

type ClientWindow = { count: number; startedAt: number };

/** Each request is counted once, whichever limiter sees it first (a route's, or the not-found handler's). */
const COUNTED = Symbol('rate limit counted');
declare module 'fastify' {
  interface FastifyRequest {
    [COUNTED]?: true;
  }
}

/**
 * A per-client limit with @fastify/rate-limit's rules and answers, as a synchronous hook: the client
 * is its address (the plugin's `normalizeIP`: an IPv6 client by its /64, an IPv4-mapped one as IPv4);
 * a fixed window from the client's first request; x-ratelimit-limit, -remaining and -reset on every
 * answer, Retry-After and the standard 429 past the limit; at most `clients` windows kept, the least
 * recently seen forgotten first (the plugin's LRU store). The plugin's async hook took several promise
 * hops on every console request (about 20 µs of a read's API CPU in a profile).
 */
export function clientLimit({ max, timeWindow }: RateLimitPolicy, clients: number): Hook {
  const windows = new Map<string, ClientWindow>();
  return rateLimitHook((request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request[COUNTED]) return done();
    request[COUNTED] = true;
    // normalizeIP's answer for an address without a colon (not IPv6), without its IPv6 regular expression.
    const key = request.ip.includes(':') ? normalizeIP(request.ip) : request.ip.toLowerCase();
    const now = Date.now();
    let window = windows.get(key);
    if (window) windows.delete(key);
    else if (windows.size >= clients) windows.delete(windows.keys().next().value as string);
    if (!window || window.startedAt + timeWindow <= now) window = { count: 0, startedAt: now };
    windows.set(key, window);
    window.count++;
    const resetSeconds = Math.ceil((window.startedAt + timeWindow - now) / 1000);
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - window.count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (window.count <= max) return done();
    reply.header('retry-after', resetSeconds);
    done(new AppError('rate_limited', REQUEST_LIMIT_MESSAGES.tooManyRequests(Math.max(1, resetSeconds))));
  });
}

/** Clients the global limit keeps a window for; a route's own limit keeps fewer (the plugin's defaults). */
const GLOBAL_CLIENTS = 10_000;
const ROUTE_CLIENTS = 5_000;

/**
 * Every route is limited per client address (limits.perMinute), one count across all of them;
 * sign-in, refresh and the public validate endpoint more strictly, each with its own count; provider
 * callbacks per company and generously, since a provider posts delivery-report bursts from few
 * addresses. Counters live in this process's memory (see docs/decisions): several API processes each
 * allow the configured rate. Returns the global limit's hook, for the not-found handler (unknown URLs
 * count against the client's budget too).
 */
export function registerRateLimits(app: FastifyInstance, limits: RateLimits): Hook {
  const global = clientLimit({ max: limits.perMinute, timeWindow: MINUTE }, GLOBAL_CLIENTS);
  app.addHook('onRoute', (route) => {
    if (PROVIDER_CALLBACK.test(route.url)) {
      route.config = { ...(route.config ?? {}), rateLimit: false };
      route.onRequest = [...toList(route.onRequest), companyLimit(limits.callbacksPerSecond)];
      return;
    }
    const configured = route.config?.rateLimit;
    if (configured === false) return;
    if (configured && (typeof configured.max !== 'number' || typeof configured.timeWindow !== 'number'))
      throw new Error(`${route.url}: a route's rate limit names its max and timeWindow as numbers`);
    const policy = (configured as RateLimitPolicy | undefined) ?? rateLimitPolicyFor(route.url, limits);
    if (policy) route.config = { ...(route.config ?? {}), rateLimit: policy };
    // First: a request past its client's limit costs nothing more, not even its sign-in check.
    route.onRequest = [policy ? clientLimit(policy, ROUTE_CLIENTS) : global, ...toList(route.onRequest)];
  });
  return global;
}

function toList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
