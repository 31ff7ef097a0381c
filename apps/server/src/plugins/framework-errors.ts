import http from 'node:http';
import type { Socket } from 'node:net';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorEnvelope } from './error-handler.ts';

/** The longest path parameter the router reads (Fastify's default); a longer one is a 414. */
export const MAX_PARAM_LENGTH = 100;

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (an invalid
 * percent-encoding, a path parameter over MAX_PARAM_LENGTH), in the API's envelope instead of
 * Fastify's own body.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', 'no-store');
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return reply
      .code(414)
      .send(errorEnvelope(REQUEST_LIMIT_MESSAGES.urlPartTooLong(MAX_PARAM_LENGTH), 'bad_request'));
  if (error.code === 'FST_ERR_BAD_URL')
    return reply.code(400).send(errorEnvelope(REQUEST_LIMIT_MESSAGES.unreadableUrl, 'bad_request'));
  // An async route constraint failed (none is declared): the server's fault, as in the error handler.
  return reply.code(500).send(errorEnvelope('Internal server error', 'internal'));
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request at
 * all (headers over the server's maxHeaderSize, a request that is not HTTP, one that arrives too
 * slowly). Written straight to the socket, as Fastify's default does, but in the API's envelope;
 * the connection is closed after it.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = clientErrorAnswer(error.code);
  if (socket.writable) {
    const body = JSON.stringify(errorEnvelope(message, 'bad_request'));
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'Cache-Control: no-store\r\n' +
        'Connection: close\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function clientErrorAnswer(code: string | undefined): [number, string] {
  if (code === 'HPE_HEADER_OVERFLOW')
    return [431, REQUEST_LIMIT_MESSAGES.headersTooLarge(http.maxHeaderSize)];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, REQUEST_LIMIT_MESSAGES.requestTimeout];
  return [400, REQUEST_LIMIT_MESSAGES.unreadableRequest];
}
