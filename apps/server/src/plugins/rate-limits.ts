import { normalizeIP } from '@fastify/rate-limit';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimits } from '../config.ts';
import { AppError } from '../errors.ts';
import { keepRecent } from '../lib/keep-recent.ts';

const MINUTE = 60_000;

/** Provider callbacks are limited by their own hook (modules/provider-callbacks/callback-admission.ts). */
const PROVIDER_CALLBACK = /\/callbacks\/(subscription|dlr)\/:companyId\/:token$/;

/** The stricter limit a route gets instead of the global one, if any (provider callbacks: see callback-admission.ts). */
export function rateLimitPolicyFor(url: string, limits: RateLimits): RateLimitPolicy | undefined {
  if (url.endsWith('/auth/login') || url.endsWith('/auth/refresh'))
    return { max: limits.authPerMinute, timeWindow: MINUTE };
  if (url.includes('/callbacks/validate/')) return { max: limits.validatePerMinute, timeWindow: MINUTE };
  return undefined;
}

/**
 * Counters in fixed windows (from a key's first request), at most `capacity` keys kept: past that,
 * the windows that are over go first, then the oldest. Counted only when told (charge), so a
 * caller decides what counts: a provider callback's company counts only requests whose token is
 * right, its client address only those whose token is wrong.
 */
export class FixedWindows {
  readonly max: number;
  readonly windowMs: number;
  private readonly capacity: number;
  private readonly windows = new Map<string, { count: number; startedAt: number }>();

  constructor(max: number, windowMs: number, capacity: number) {
    this.max = max;
    this.windowMs = windowMs;
    this.capacity = capacity;
  }

  /** Counts one request against the key: its count in the window and the seconds until the window ends. */
  charge(key: string): WindowState {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window) {
      if (this.windows.size >= this.capacity) this.forgetOldest(now - this.windowMs);
      window = { count: 0, startedAt: now };
      this.windows.set(key, window);
    } else if (window.startedAt + this.windowMs <= now) {
      window.count = 0;
      window.startedAt = now;
    }
    window.count++;
    return { count: window.count, resetSeconds: Math.ceil((window.startedAt + this.windowMs - now) / 1000) };
  }

  /** Whether the key has used up its current window (nothing is counted). */
  isSpent(key: string): WindowState | undefined {
    const window = this.windows.get(key);
    const now = Date.now();
    if (!window || window.startedAt + this.windowMs <= now || window.count < this.max) return undefined;
    return { count: window.count, resetSeconds: Math.ceil((window.startedAt + this.windowMs - now) / 1000) };
  }

  private forgetOldest(overBefore: number) {
    for (const [key, window] of this.windows) if (window.startedAt <= overBefore) this.windows.delete(key);
    if (this.windows.size >= this.capacity) this.windows.delete(this.windows.keys().next().value as string);
  }
}

export type WindowState = { count: number; resetSeconds: number };

/**
 * The answer's limit headers (x-ratelimit-limit, -remaining, -reset), as @fastify/rate-limit sends
 * them; past the limit, Retry-After and the standard 429 to answer with, else undefined.
 */
export function limitAnswer(reply: FastifyReply, max: number, state: WindowState): AppError | undefined {
  reply.header('x-ratelimit-limit', max);
  reply.header('x-ratelimit-remaining', Math.max(0, max - state.count));
  reply.header('x-ratelimit-reset', state.resetSeconds);
  if (state.count <= max) return undefined;
  reply.header('retry-after', state.resetSeconds);
  return new AppError(
    'rate_limited',
    REQUEST_LIMIT_MESSAGES.tooManyRequests(Math.max(1, state.resetSeconds)),
  );
}

/** A client's key: its address (the plugin's `normalizeIP`: an IPv6 client by its /64, an IPv4-mapped one as IPv4). */
export function clientKeyOf(request: FastifyRequest) {
  // normalizeIP's answer for an address without a colon (not IPv6), without its IPv6 regular expression.
  return request.ip.includes(':') ? normalizeIP(request.ip) : request.ip.toLowerCase();
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
    const key = clientKeyOf(request);
    const now = Date.now();
    let window = windows.get(key);
    if (!window || window.startedAt + timeWindow <= now) window = { count: 0, startedAt: now };
    keepRecent(windows, key, window, clients);
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
 * callbacks are left to their own limit (callback-admission.ts: per company for a right token, per
 * address for a wrong one). Counters live in this process's memory (see docs/decisions): several API processes each
 * allow the configured rate. Returns the global limit's hook, for the not-found handler (unknown URLs
 * count against the client's budget too).
 */
export function registerRateLimits(app: FastifyInstance, limits: RateLimits): Hook {
  const global = clientLimit({ max: limits.perMinute, timeWindow: MINUTE }, GLOBAL_CLIENTS);
  app.addHook('onRoute', (route) => {
    if (PROVIDER_CALLBACK.test(route.url)) {
      route.config = { ...(route.config ?? {}), rateLimit: false };
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
