import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { ApiInstance } from './api-instance.ts';
import type { AppDeps } from './app-deps.ts';
import { redactingLoggerOptions } from './lib/log-redaction.ts';
import { registerConsole } from './plugins/console.ts';
import { errorHandler } from './plugins/error-handler.ts';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './plugins/framework-errors.ts';
import { registerLoadShedding } from './plugins/load-shedding.ts';
import { registerRateLimits } from './plugins/rate-limits.ts';
import { MULTIPART_LIMITS, registerRequestGuards } from './plugins/request-guards.ts';
import { registerResponseHeaders } from './plugins/response-headers.ts';
import { registerSecurityHeaders } from './plugins/security-headers.ts';
import { registerRoutes } from './routes.ts';

/** The built app: the API's own Fastify instance (routes take it as ApiInstance). */
export type App = ApiInstance;

export const API_PREFIX = '/api/v1';

export type BuildOptions = {
  logger?: boolean | object;
  serveConsole?: boolean;
};

export async function buildApp(deps: AppDeps, options: BuildOptions = {}): Promise<App> {
  const { config } = deps;
  const logger = options.logger ?? false;
  const app = Fastify({
    logger: logger === false ? false : redactingLoggerOptions(logger === true ? {} : logger),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Graceful stop: finish in-flight requests, refuse new ones.
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // What the router and Node's HTTP parser refuse before any route: in the API's envelope too.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // Every answer is checked against its zod schema, and written with only the fields it names.
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  registerRequestGuards(app);
  registerResponseHeaders(app, { hsts: config.hsts });

  // External plugins first, then the API, then the console (fastify/demo's order).
  await registerLoadShedding(app, deps.db, { maxEventLoopDelayMs: config.maxEventLoopDelayMs });
  const clientRateLimit = registerRateLimits(app, config.rateLimits);
  await registerSecurityHeaders(app);
  await app.register(formbody);
  await app.register(multipart, { limits: MULTIPART_LIMITS });
  await app.register(swagger, {
    openapi: {
      info: { title: 'SMS Console API', version: '1.0.0', description: 'The API behind the SMS console.' },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          // A company's API key (modules/api-keys), sent the same way; each route says which scopes open it.
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'smsk_live_<prefix>_<secret>',
            description:
              'An API key a company admin creates in the console (API Keys). Send it as ' +
              '`Authorization: Bearer smsk_live_...`. Scopes: messages:send (send messages), ' +
              'messages:read (read messages and reports), subscribers:manage (manage subscribers); ' +
              'a route its scopes do not open answers 403. Each key has its own rate limit.',
          },
        },
      },
      security: [{ bearerAuth: [] }],
      tags: [
        {
          name: 'webhooks',
          description:
            'Signed outbound webhooks (docs/api.md, "Webhooks"). Each delivery is a POST of ' +
            '`{ "events": [{ "id": "evt_123", "type": "message.delivered", "created": "<ISO time>", "data": {...} }] }` ' +
            '(up to 500 events, oldest first) with the header `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 ' +
            'of "<t>.<raw body>" with the endpoint\'s secret>`. Refuse a t more than 5 minutes from your clock; ' +
            'answer 2xx once stored. Failures are retried with exponential backoff and jitter for 24 hours, then the ' +
            'endpoint is disabled. Event types: message.sent, message.delivered, message.failed, message.received, ' +
            'subscriber.subscribed, subscriber.unsubscribed; the test button sends webhook.test.',
        },
        {
          name: 'templates',
          description:
            'Saved texts with merge fields (docs/api.md, "Templates and merge fields"). A placeholder names a subscriber ' +
            'field: `{{first_name}}`, or with a fallback for subscribers without one, `{{first_name|friend}}`; names ' +
            "are a lower-case letter then letters, digits or _ (at most 32). Fields are set by an import's extra " +
            'columns or PUT /subscriptions/subscribers/{id}/attributes. A bulk send with placeholders is measured ' +
            'against the longest text among its recipients (refused over 160 characters; its parts reserved per ' +
            'recipient; GET /messages/merge-fields shows the figures) and each recipient gets its own text, rendered ' +
            'at hand-over from its fields as they are then: one that has grown past 160 fails, never cut.',
        },
      ],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  await app.register(async (api) => registerRoutes(api as ApiInstance, deps), { prefix: API_PREFIX });

  await registerConsole(app, {
    consoleDir: config.consoleDir,
    enabled: options.serveConsole ?? true,
    // Unknown URLs count against the client's limit too, so probing for routes is throttled.
    notFoundPreHandler: clientRateLimit,
  });
  return app as unknown as App;
}
