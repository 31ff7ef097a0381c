import { Readable } from 'node:stream';
import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZIdParam } from '@sms/contracts/common/envelope';
import { ZExportSubscribersQuery } from '@sms/contracts/subscribers/export-subscribers';
import {
  IMPORT_MAX_BYTES,
  IMPORT_MAX_JSON_BYTES,
  IMPORT_MESSAGES,
  ZImportSubscribersJson,
  ZImportSubscribersResponse,
} from '@sms/contracts/subscribers/import-subscribers';
import {
  ZListServiceSubscribersQuery,
  ZListServiceSubscribersResponse,
} from '@sms/contracts/subscribers/list-service-subscribers';
import { ZListSubscribersQuery, ZListSubscribersResponse } from '@sms/contracts/subscribers/list-subscribers';
import { ZSubscribeRequest, ZSubscribeResponse } from '@sms/contracts/subscribers/subscribe';
import { ZUnsubscribeRequest, ZUnsubscribeResponse } from '@sms/contracts/subscribers/unsubscribe';
import {
  ZUpdateSubscriberAttributesRequest,
  ZUpdateSubscriberAttributesResponse,
} from '@sms/contracts/subscribers/update-subscriber-attributes';
import type { FastifyRequest } from 'fastify';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { badRequest } from '../../errors.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { RequestTooLargeError } from '../../plugins/request-guards.ts';
import { asUploadError, cappedChunks, type ImportSource, uploadedFileChunks } from './read-import-rows.ts';
import {
  exportSubscribers,
  importSubscribers,
  listServiceSubscribers,
  listSubscribers,
  subscribe,
  unsubscribe,
  updateSubscriberAttributes,
} from './subscribers.service.ts';

const tags = ['subscribers'];

/** A multipart content type's boundary parameter, not empty (quoted or not). */
const BOUNDARY = /;\s*boundary=(?:"[^"]+"|[^";\s]+)/i;

/**
 * An import's CSV, whichever way it came: a multipart file or a text/csv body (both streamed,
 * read as they arrive), or JSON { csv }.
 */
async function readImportedCsv(request: FastifyRequest): Promise<ImportSource> {
  if (request.isMultipart()) {
    // Busboy reads an empty boundary as a form without parts: say what is wrong instead.
    if (!BOUNDARY.test(request.headers['content-type'] ?? ''))
      throw badRequest(IMPORT_MESSAGES.malformedUpload);
    const file = await request.file({ limits: { fileSize: IMPORT_MAX_BYTES } }).catch((error: unknown) => {
      throw asUploadError(error);
    });
    if (!file) throw badRequest(IMPORT_MESSAGES.fileRequired);
    return uploadedFileChunks(file.file);
  }
  if (request.body instanceof Readable) return cappedChunks(request.body);
  const parsed = ZImportSubscribersJson.safeParse(request.body);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? IMPORT_MESSAGES.unsupported);
  return parsed.data.csv;
}

export function subscribersRoutes(app: ApiInstance, deps: AppDeps) {
  const apiKeyScopes = ['subscribers:manage'] as const;
  const managers = guard(deps, ROUTE_ROLES.subscribers, { apiKeyScopes });
  const ofService = guard(deps, ROUTE_ROLES.subscribers, { idOf: 'services', apiKeyScopes });
  if (!app.hasContentTypeParser('text/csv')) {
    // The body stays a stream (read by the import as it arrives); a declared size over the cap is refused unread.
    app.addContentTypeParser('text/csv', (request, payload, done) => {
      if (Number(request.headers['content-length']) > IMPORT_MAX_BYTES)
        return done(new RequestTooLargeError(IMPORT_MAX_BYTES), undefined);
      done(null, payload);
    });
  }

  app.get(
    '/subscriptions/subscribers',
    {
      preHandler: managers,
      schema: {
        tags,
        description:
          'Subscribers, newest first. search finds numbers that start with the digits (as typed, international, or national with a leading 0) or end with them; one or two digits match anywhere. ' +
          'Totals without a search come from counters; with one, counting stops at 10,000 (totalIsExact false). ' +
          'Each row names its company; companyId narrows a system_admin to one company and is ignored for everyone else.',
        querystring: ZListSubscribersQuery,
        response: { 200: ZListSubscribersResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listSubscribers(deps, contextOf(request), request.query),
    }),
  );

  app.get(
    '/subscriptions/subscribers/export',
    {
      preHandler: managers,
      schema: {
        tags,
        description:
          'The subscriber list as CSV (same filters as the list, every matching row), streamed. ' +
          'A system_admin’s file has a last column, company.',
        querystring: ZExportSubscribersQuery,
      },
    },
    async (request, reply) => {
      const stream = await exportSubscribers(deps, contextOf(request), request.query);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="subscribers-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  );

  app.put(
    '/subscriptions/subscribers/:id/attributes',
    {
      preHandler: guard(deps, ROUTE_ROLES.subscribers, { idOf: 'subscribers', apiKeyScopes }),
      schema: {
        tags,
        description:
          "Replaces the subscriber's merge fields (first_name, language...): every field it keeps, a blank or missing one is removed. " +
          'Names: a lower-case letter, then letters, digits or _ (at most 32); at most 10 fields of at most 100 characters.',
        params: ZIdParam,
        body: ZUpdateSubscriberAttributesRequest,
        response: { 200: ZUpdateSubscriberAttributesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateSubscriberAttributes(
        deps,
        contextOf(request),
        request.params.id,
        request.body.attributes,
      ),
    }),
  );

  app.get(
    '/services/:id/subscribers',
    {
      preHandler: ofService,
      schema: {
        tags,
        description: "A service's subscribers (active subscriptions by default), newest first.",
        params: ZIdParam,
        querystring: ZListServiceSubscribersQuery,
        response: { 200: ZListServiceSubscribersResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listServiceSubscribers(deps, contextOf(request), request.params.id, request.query),
    }),
  );

  app.post(
    '/services/:id/subscribe',
    {
      preHandler: ofService,
      schema: {
        tags,
        description:
          "Subscribes a phone number (normalised to E.164 with the company's default country). Subscribing twice changes nothing (changed: false).",
        params: ZIdParam,
        body: ZSubscribeRequest,
        response: { 200: ZSubscribeResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await subscribe(deps, contextOf(request), request.params.id, request.body.phoneNumber),
    }),
  );

  app.delete(
    '/services/:id/unsubscribe',
    {
      preHandler: ofService,
      schema: {
        tags,
        description:
          'Ends the number’s subscription to the service; the subscriber record stays. Repeating it changes nothing.',
        params: ZIdParam,
        body: ZUnsubscribeRequest,
        response: { 200: ZUnsubscribeResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await unsubscribe(deps, contextOf(request), request.params.id, request.body.phoneNumber),
    }),
  );

  app.post(
    '/services/:id/subscribers/import',
    {
      preHandler: ofService,
      // Fastify's limit binds the JSON form alone: files and text/csv bodies are streamed and capped as they are read.
      bodyLimit: IMPORT_MAX_JSON_BYTES,
      schema: {
        tags,
        description:
          'Imports phone numbers from a CSV (multipart field "file", a text/csv body, or JSON { csv }). ' +
          'A header naming phone/phoneNumber/msisdn/number picks the column, else the first column is read. ' +
          'Valid numbers are subscribed; invalid lines are reported by line number; numbers that had opted out stay unsubscribed. ' +
          'Files and text/csv bodies are read as they arrive (up to 64 MB and 1,000,000 rows); the JSON form is held whole (up to 20 MB).',
        params: ZIdParam,
        response: { 200: ZImportSubscribersResponse },
      },
    },
    async (request) => {
      const csv = await readImportedCsv(request);
      return {
        success: true as const,
        data: await importSubscribers(deps, contextOf(request), request.params.id, csv),
      };
    },
  );
}
