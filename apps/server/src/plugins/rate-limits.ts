import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
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
export function rateLimitPolicyFor(url: string, limits: RateLimits): RateLimitOptions | undefined {
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

/**
 * Every route is limited per client address (limits.perMinute); sign-in, refresh and the public
 * validate endpoint more strictly; provider callbacks per company and generously, since a
 * provider posts delivery-report bursts from few addresses. Counters live in this process's
 * memory (see docs/decisions): several API processes each allow the configured rate.
 */
export async function registerRateLimits(app: FastifyInstance, limits: RateLimits) {
  // Added before the plugin's own onRoute hook, so the plugin sees each route's policy.
  app.addHook('onRoute', (route) => {
    if (PROVIDER_CALLBACK.test(route.url)) {
      route.config = { ...(route.config ?? {}), rateLimit: false };
      const hooks = route.onRequest;
      const limit = companyLimit(limits.callbacksPerSecond);
      route.onRequest =
        hooks === undefined ? [limit] : Array.isArray(hooks) ? [...hooks, limit] : [hooks, limit];
      return;
    }
    const policy = rateLimitPolicyFor(route.url, limits);
    if (policy) route.config = { ...(route.config ?? {}), rateLimit: policy };
  });
  await app.register(rateLimit, {
    global: true,
    max: limits.perMinute,
    timeWindow: MINUTE,
    cache: 10_000,
    errorResponseBuilder: (_request, context) =>
      new AppError(
        'rate_limited',
        REQUEST_LIMIT_MESSAGES.tooManyRequests(Math.max(1, Math.ceil(context.ttl / 1000))),
      ),
  });
}
