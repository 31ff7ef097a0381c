import type { TApiError } from '@sms/contracts/common/envelope';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { IMPORT_MAX_BYTES } from '@sms/contracts/subscribers/import-subscribers';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError } from '../errors.ts';
import { databaseBusyError, databaseUnavailable, isDatabaseUnreachable } from './database-unavailable.ts';

/** @fastify/multipart's count limits (parts, files, fields): too many pieces, not too many bytes. */
const MULTIPART_COUNT_LIMIT = /^FST_(PARTS|FILES|FIELDS)_LIMIT$/;

// zod's own wording; a message of ours (from the contracts) is shown as written.
const GENERIC_ZOD_MESSAGE = /^(Invalid|Too small|Too big|Unrecognized|Expected)/;

function describeIssue(issue: {
  instancePath?: string;
  message?: string;
  params?: { issue?: { path?: PropertyKey[] } };
}) {
  const fieldPath =
    issue.params?.issue?.path?.map(String).join('.') ||
    issue.instancePath?.replace(/^\//, '').replaceAll('/', '.') ||
    '';
  const message = issue.message ?? 'Invalid value';
  const text = fieldPath && GENERIC_ZOD_MESSAGE.test(message) ? `${fieldPath}: ${message}` : message;
  // A message of ours that names its field ('page must be ...') is not prefixed with it again.
  const named = fieldPath === '' || message.startsWith(`${fieldPath} `);
  return { fieldPath, text, detail: named ? message : `${fieldPath}: ${message}` };
}

export function errorHandler(
  error: FastifyError | AppError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof AppError) {
    // Unavailable is the server's state, not the client's mistake: worth a line for whoever runs it.
    if (error.code === 'unavailable') request.log.warn({ err: error.cause ?? error }, error.message);
    if (error.headers) reply.headers(error.headers);
    return reply.code(error.status).send(errorEnvelope(error.message, error.code, error.details));
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation.map((issue) =>
      describeIssue(issue as Parameters<typeof describeIssue>[0]),
    );
    // No body at all (or an empty one) where an object is expected: say so, not zod's type words.
    if (error.validationContext === 'body' && (request.body === null || request.body === undefined))
      return reply.code(400).send(errorEnvelope(REQUEST_LIMIT_MESSAGES.bodyRequired, 'validation_failed'));
    return reply.code(400).send(
      errorEnvelope(
        issues[0]?.text ?? 'Invalid request',
        'validation_failed',
        issues.map((issue) => issue.detail),
      ),
    );
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ err: error, cause: error.cause }, 'response did not match its schema');
    return reply.code(500).send(errorEnvelope('Internal server error', 'internal'));
  }
  const status = (error as FastifyError).statusCode;
  if (status === 413 && MULTIPART_COUNT_LIMIT.test((error as FastifyError).code ?? '')) {
    return reply.code(413).send(errorEnvelope(REQUEST_LIMIT_MESSAGES.tooManyParts, 'bad_request'));
  }
  if (status === 413) {
    return reply
      .code(413)
      .send(errorEnvelope(REQUEST_LIMIT_MESSAGES.tooLarge(sizeLimitOf(error, request)), 'bad_request'));
  }
  if (status && status >= 400 && status < 500) {
    if (status === 429) return reply.code(429).send(errorEnvelope(error.message, 'rate_limited'));
    return reply
      .code(status)
      .send(errorEnvelope(error.message, status === 404 ? 'not_found' : 'bad_request'));
  }
  // A database restarting or failing over is the server's state, not a fault of this request.
  if (isDatabaseUnreachable(error)) return errorHandler(databaseUnavailable(error), request, reply);
  // So is one too busy for it (no connection free in time, or past the statement timeout).
  const busy = databaseBusyError(error);
  if (busy) return errorHandler(busy, request, reply);
  // Anything else is our fault: log it whole, tell the client nothing about it.
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(errorEnvelope('Internal server error', 'internal'));
}

/** The limit a too-large request broke: its own, a multipart file's, or the route's body limit. */
function sizeLimitOf(error: Error, request: FastifyRequest) {
  const own = (error as { maxBytes?: unknown }).maxBytes;
  if (typeof own === 'number') return own;
  // @fastify/multipart's file-size limit.
  if ((error as FastifyError).code === 'FST_REQ_FILE_TOO_LARGE') return IMPORT_MAX_BYTES;
  return request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit ?? 1024 * 1024;
}

export function errorEnvelope(message: string, code: string, details?: string[]): TApiError {
  return details?.length
    ? { success: false, message, error: code, details }
    : { success: false, message, error: code };
}

export function notFoundEnvelope(method: string, url: string): TApiError {
  return errorEnvelope(`Route ${method} ${url.split('?')[0]} not found`, 'not_found');
}
