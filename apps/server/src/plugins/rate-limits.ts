import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/** The stricter limit a route gets instead of the global one, if any. */
export function rateLimitPolicyFor(url: string, limits: RateLimits): RateLimitOptions | undefined {
  if (url.endsWith('/auth/login') || url.endsWith('/auth/refresh'))
    return { max: limits.authPerMinute, timeWindow: MINUTE };
  if (url.includes('/callbacks/validate/')) return { max: limits.validatePerMinute, timeWindow: MINUTE };
  if (PROVIDER_CALLBACK.test(url))
    return { max: limits.callbacksPerSecond, timeWindow: 1000, keyGenerator: companyKeyOf };
  return undefined;
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
