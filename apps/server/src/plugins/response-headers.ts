import type { FastifyInstance } from 'fastify';

const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * - Every API answer (tokens, lists, callbacks, errors) is `Cache-Control: no-store` unless its
 *   route chose otherwise: none may sit in a browser or proxy cache.
 * - HSTS only means something over TLS: it is sent on requests that arrived over HTTPS (directly,
 *   or per X-Forwarded-Proto behind TRUST_PROXY), always with HSTS=1, never with HSTS=0.
 */
export function registerResponseHeaders(app: FastifyInstance, options: { hsts: boolean | undefined }) {
  // A callback-style hook (done), not an async one: it runs on every answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/api') && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
    if (options.hsts ?? request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    done(null, payload);
  });
}
