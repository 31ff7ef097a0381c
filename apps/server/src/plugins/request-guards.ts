import { findNul, stripNul, TEXT_MESSAGES } from '@sms/contracts/common/text';
import { IMPORT_MAX_BYTES } from '@sms/contracts/subscribers/import-subscribers';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';

/** A multipart request carries one CSV file plus a little framing; anything larger is refused unread. */
export const MULTIPART_MAX_BYTES = IMPORT_MAX_BYTES + 64 * 1024;

/** Busboy's limits: one file, a few small fields (its defaults allow 1,000 parts of 1 MB each). */
export const MULTIPART_LIMITS = {
  fileSize: IMPORT_MAX_BYTES,
  files: 1,
  fields: 10,
  fieldSize: 16 * 1024,
  parts: 12,
  headerPairs: 100,
};

/** Provider callbacks: a provider may send a NUL; it is dropped there instead of refusing the report. */
const PROVIDER_CALLBACK = /\/callbacks\/(subscription|dlr)\//;

export class RequestTooLargeError extends Error {
  readonly statusCode = 413;
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super('request too large');
    this.maxBytes = maxBytes;
  }
}

/**
 * Checks that hold for every route, before its own validation:
 * - PostgreSQL cannot store U+0000, so a NUL anywhere in a body, query string or path parameter
 *   is a 400 (one place instead of every schema), except in provider callbacks, where it is removed;
 * - an empty body sent as application/json reads as no body (POST /auth/logout has no payload);
 * - a multipart upload declaring more than MULTIPART_MAX_BYTES is refused before it is read.
 */
export function registerRequestGuards(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });

  // Callback-style hooks (done), not async ones: they run on every request, and an async hook costs
  // Fastify a promise and its settling per request, on the busiest route too.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!isMultipart(request)) return done();
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > MULTIPART_MAX_BYTES)
      return done(new RequestTooLargeError(MULTIPART_MAX_BYTES));
    done();
  });

  app.addHook('preValidation', (request, _reply, done) => {
    if (PROVIDER_CALLBACK.test(request.routeOptions.url ?? '')) {
      // Copied only when a NUL is there: the delivery-report callback is the busiest route.
      if (holdsNul(request.body)) request.body = stripNul(request.body);
      if (holdsNul(request.query)) request.query = stripNul(request.query);
      if (holdsNul(request.params)) request.params = stripNul(request.params);
      return done();
    }
    // A read's query and path hold no NUL as a rule: looked for without building the dotted paths
    // findNul reports (a body, on writes, still goes through findNul).
    const body = request.body;
    if ((body === undefined || body === null) && !holdsNul(request.query) && !holdsNul(request.params))
      return done();
    for (const [part, value] of [
      ['body', request.body],
      ['querystring', request.query],
      ['params', request.params],
    ] as const) {
      const at = findNul(value);
      if (at !== null)
        return done(
          new AppError('validation_failed', TEXT_MESSAGES.nulCharacter, {
            details: [`${at || part}: ${TEXT_MESSAGES.nulCharacter}`],
          }),
        );
    }
    done();
  });
}

/** Whether a NUL is in any string, key or value, of parsed form, JSON, query or path data. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  for (const key in value) {
    if (key.includes('\u0000') || holdsNul((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function isMultipart(request: FastifyRequest) {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/');
}
