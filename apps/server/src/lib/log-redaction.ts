import type { FastifyRequest } from 'fastify';

const REDACTED = '[redacted]';

/**
 * Phone numbers and message texts never reach the logs: request bodies are not logged, query
 * values (a subscriber search is a phone number) and callback URL tokens are masked, and the
 * fields that carry numbers or texts are censored wherever a log call nests them.
 */
export const LOG_REDACT_PATHS = [
  'body',
  'req.body',
  'payload',
  'phoneNumber',
  'msisdn',
  'text',
  'from',
  '*.body',
  '*.phoneNumber',
  '*.msisdn',
  '*.text',
  '*.from',
  // PostgreSQL puts the offending values in `detail` ("Key (msisdn)=(+2547...) already exists").
  'err.detail',
  'err.where',
  'err.cause.detail',
  'req.headers.authorization',
  'req.headers.cookie',
];

/** The URL as logged: callback secrets and every query value masked. */
export function urlForLog(url: string) {
  const [path, query] = splitOnce(url, '?');
  const safePath = path.replace(
    /(\/callbacks\/(?:subscription|dlr|validate\/[^/]+)\/[^/]*\/)[^/]+/,
    `$1${REDACTED}`,
  );
  if (query === undefined) return safePath;
  const safeQuery = query
    .split('&')
    .map((pair) => `${splitOnce(pair, '=')[0]}=${REDACTED}`)
    .join('&');
  return `${safePath}?${safeQuery}`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Fastify's request serializer, with the URL masked. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: urlForLog(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Pino options for the app's logger: the caller's (level, stream...) plus redaction. */
export function redactingLoggerOptions(base: object) {
  return {
    ...base,
    redact: { paths: LOG_REDACT_PATHS, censor: REDACTED },
    serializers: { req: serializeRequest },
  };
}

/** What a provider callback may show in a log line: which fields it had, never their values (a number, a text). */
export function describeCallbackForLog(body: unknown) {
  const fields = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const plain = (name: string) =>
    typeof fields[name] === 'string' ? String(fields[name]).slice(0, 40) : undefined;
  return {
    fields: Object.keys(fields).sort(),
    shortCode: plain('shortCode'),
    keyword: plain('keyword'),
    updateType: plain('updateType'),
  };
}
