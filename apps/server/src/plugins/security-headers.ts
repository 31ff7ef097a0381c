import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

declare module 'fastify' {
  interface RouteShorthandOptions {
    /** false: a route no browser reads (a provider's callback) answers without the browser-protection headers. */
    helmet?: false;
  }
  interface FastifyContextConfig {
    withoutSecurityHeaders?: true;
  }
}

/**
 * Helmet's browser-protection headers (CSP, frame, sniffing, referrer, ...) on every answer.
 * Our options name no per-request value (no nonce, no function directive), so helmet's answer is
 * the same every time: it is taken once, here, and each request gets it as Fastify reply headers.
 * Set that way they reach Node's `writeHead` with the reply's other headers in one object; helmet's
 * own `res.setHeader` calls cost a middleware chain and put Node on its slower path that sets every
 * header of the answer one by one (about 20 µs of a console read's API CPU in a profile).
 */
export function registerSecurityHeaders(app: FastifyInstance) {
  const headers = helmetHeaders();
  app.addHook('onRoute', (route) => {
    if (route.helmet === false) route.config = { ...route.config, withoutSecurityHeaders: true };
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.routeOptions.config.withoutSecurityHeaders) reply.headers(headers);
    done();
  });
}

/** The headers helmet writes with this app's options, names lower-cased as Fastify keeps them. */
export function helmetHeaders(): Record<string, string> {
  const applyHeaders = helmet({
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
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number) => {
      headers[name.toLowerCase()] = String(value);
    },
    // X-Powered-By: neither Node nor Fastify writes it, so there is nothing to take out per answer.
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  applyHeaders({} as never, recorder as never, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return headers;
}
