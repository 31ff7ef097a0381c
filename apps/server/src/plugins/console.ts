import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { notFoundEnvelope } from './error-handler.ts';

/** Vite's content-hashed build output: a new build gets new names, so these may be cached for good. */
const HASHED_ASSET = /[/\\]assets[/\\]/;
/** Source maps are for development (the Vite dev server): never served by the API process. */
const SOURCE_MAP = /\.map$/i;

/**
 * Serves the built console: hashed assets cached long, everything else (index.html and the
 * public/ files) revalidated on each use (`no-cache` with ETag/Last-Modified: a 304 when
 * unchanged, and a new release is picked up at once instead of after a cache lifetime).
 * Client-side routes (/dashboard, /admin/audit...) get index.html for GET and HEAD alike.
 */
export async function registerConsole(
  app: FastifyInstance,
  options: { consoleDir: string; enabled: boolean; notFoundPreHandler: RouteShorthandOptions['preHandler'] },
) {
  const serve = options.enabled && existsSync(path.join(options.consoleDir, 'index.html'));
  if (serve) {
    await app.register(fastifyStatic, {
      root: options.consoleDir,
      wildcard: false,
      index: false,
      cacheControl: false,
      allowedPath: (pathName) => !SOURCE_MAP.test(pathName),
      setHeaders: (response, filePath) => {
        response.setHeader(
          'cache-control',
          HASHED_ASSET.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  app.setNotFoundHandler({ preHandler: options.notFoundPreHandler }, (request, reply) =>
    answerNotFound(request, reply, serve),
  );
}

function answerNotFound(request: FastifyRequest, reply: FastifyReply, serve: boolean) {
  const pathName = request.url.split('?')[0];
  const pageRequest = request.method === 'GET' || request.method === 'HEAD';
  if (request.url.startsWith('/api') || !pageRequest) {
    return reply.code(404).send(notFoundEnvelope(request.method, request.url));
  }
  // A missing file is a 404, not the app's page: a stale asset name must not be cached as HTML.
  if (SOURCE_MAP.test(pathName) || pathName.startsWith('/assets/')) {
    return reply.code(404).type('text/plain').send('Not found');
  }
  if (!serve) {
    return reply
      .code(404)
      .type('text/plain')
      .send('The console is not built. Run `npm run build` (npm start does it for you).');
  }
  return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
}
