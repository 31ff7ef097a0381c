import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * What routes register on: Fastify with zod schemas. Kept apart from app.ts so a route needs
 * nothing of the app that mounts it (no import circle); what plugins add to requests is declared
 * where they add it (`declare module 'fastify'`).
 */
export type ApiInstance = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;
