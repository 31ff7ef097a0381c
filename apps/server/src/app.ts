import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { AppDeps } from './app-deps.ts';
import { errorHandler, notFoundEnvelope } from './plugins/error-handler.ts';
import { registerRoutes } from './routes.ts';

export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export const API_PREFIX = '/api/v1';

export type BuildOptions = { logger?: boolean | object; serveConsole?: boolean };

export async function buildApp(deps: AppDeps, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: process.env.TRUST_PROXY === '1',
    bodyLimit: 1024 * 1024,
    // Graceful stop: finish in-flight requests, refuse new ones.
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);

  // External plugins first, then the API, then the console (fastify/demo's order).
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
      },
    },
  });
  await app.register(formbody);
  await app.register(multipart, { limits: { fileSize: 50 * 1024 * 1024, files: 1 } });
  await app.register(swagger, {
    openapi: {
      info: { title: 'SMS Console API', version: '1.0.0', description: 'The API behind the SMS console.' },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  await app.register(async (api) => registerRoutes(api as App, deps), { prefix: API_PREFIX });

  const consoleDir = deps.config.consoleDir;
  const serveConsole = (options.serveConsole ?? true) && existsSync(path.join(consoleDir, 'index.html'));
  if (serveConsole) {
    await app.register(fastifyStatic, { root: consoleDir, wildcard: false, index: false });
  }
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api') || request.method !== 'GET') {
      return reply.code(404).send(notFoundEnvelope(request.method, request.url));
    }
    if (!serveConsole) {
      return reply
        .code(404)
        .type('text/plain')
        .send('The console is not built. Run `npm run build` (npm start does it for you).');
    }
    // Client-side routes (/dashboard, /admin/audit, unknown paths) all load the app, which routes itself.
    return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
  });
  return app as unknown as App;
}
