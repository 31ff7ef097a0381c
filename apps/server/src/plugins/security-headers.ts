import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Helmet's browser-protection headers (CSP, frame, sniffing, referrer, ...) on every answer; a
 * route no browser reads (a provider's callback) opts out with `helmet: false`. Registered before
 * the routes, whose options it reads.
 */
export async function registerSecurityHeaders(app: FastifyInstance) {
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
    // Sent by registerResponseHeaders, and only over TLS.
    strictTransportSecurity: false,
  });
}
