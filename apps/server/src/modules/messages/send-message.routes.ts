import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZIdParam } from '@sms/contracts/common/envelope';
import {
  ZCreateMessageRequest,
  ZDeleteMessageResponse,
  ZMessageResponse,
  ZRecipientPreviewQuery,
  ZRecipientPreviewResponse,
  ZUpdateMessageRequest,
} from '@sms/contracts/messages/manage-message';
import { ZMergePreviewQuery, ZMergePreviewResponse } from '@sms/contracts/messages/merge-preview';
import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { ZSendBulkMessageRequest } from '@sms/contracts/messages/send-bulk-message';
import {
  isTransactionalSendBody,
  ZTransactionalSendRequest,
  ZTransactionalSendResponse,
} from '@sms/contracts/messages/transactional-send';
import type { FastifyReply } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { readIdempotencyKey, type StoredAnswer } from './idempotency.ts';
import {
  createMessage,
  deleteMessage,
  previewMergeFields,
  previewRecipients,
  sendExistingMessage,
  updateMessage,
} from './send-message.service.ts';
import { sendTransactional } from './transactional-send.service.ts';

const tags = ['messages'];

const IDEMPOTENCY =
  ' With an Idempotency-Key header (1-255 visible characters), a retry gets the first answer (status and body) ' +
  'and creates nothing; the same key with another request is a 409.';

/** Who may send, edit and delete messages: content managers view messaging only (spec section 1 and 6). */
const MESSAGE_SENDERS = ['system_admin', 'company_admin'] as const;

/** An answer as stored for Idempotency-Key replays: its status and body as they were first sent. */
const sendStoredAnswer = (reply: FastifyReply, answer: StoredAnswer) =>
  reply.code(answer.statusCode).send(answer.body);

/**
 * Sending, drafts, edits and cancels (spec section 7). The guard refuses viewers, and content
 * managers with the spec's own words, before the body is read; the service refuses them too.
 */
export function sendMessageRoutes(app: ApiInstance, deps: AppDeps) {
  const refusals = { content_manager: MESSAGE_MESSAGES.contentManagerSend };
  const apiKeyScopes = ['messages:send'] as const;
  const senders = guard(deps, MESSAGE_SENDERS, { refusals, apiKeyScopes });
  const oneMessage = guard(deps, MESSAGE_SENDERS, { idOf: 'messages', refusals, apiKeyScopes });
  const previewers = guard(deps, ROUTE_ROLES.messages, { apiKeyScopes });

  app.post(
    '/messages/bulk/send',
    {
      preHandler: senders,
      schema: {
        tags,
        description:
          'Sends a message to the active subscribers of the services (one recipient per phone number), now or at ' +
          'scheduledAt. Every service must be active and of one company (the caller’s; system_admin: any). The ' +
          'message and its queue job are written in one transaction; a send that would pass the company’s monthly ' +
          'message limit (recipients x SMS parts) is refused (403) before anything is queued.' +
          IDEMPOTENCY,
        body: ZSendBulkMessageRequest,
        response: { 201: ZMessageResponse },
      },
    },
    async (request, reply) => {
      const idempotencyKey = readIdempotencyKey(request.headers['idempotency-key']);
      const answer = await createMessage(deps, contextOf(request), request.body, {
        draft: false,
        idempotencyKey,
      });
      return sendStoredAnswer(reply, answer);
    },
  );

  app.post(
    '/messages',
    {
      preHandler: senders,
      // One path, two bodies: with `to` a transactional send, without it a draft. Each body is
      // validated by its own schema, so each keeps its own error messages; OpenAPI shows both.
      validatorCompiler: ({ schema: _union, ...route }) => {
        const draft = validatorCompiler({ ...route, schema: ZCreateMessageRequest });
        const transactional = validatorCompiler({ ...route, schema: ZTransactionalSendRequest });
        return (body) => (isTransactionalSendBody(body) ? transactional(body) : draft(body));
      },
      schema: {
        tags,
        description:
          `Saves a draft (status pending): nothing is queued until POST /messages/{id}/send.${IDEMPOTENCY}\n\n` +
          'With `to` (a phone number or 1 to 1,000 of them), `message` and `serviceId` (the sending service: ' +
          'its short code; active and of the caller’s company) it is a transactional send (OTPs, ' +
          'notifications): the numbers are normalised to E.164 (the company’s country for national ones), ' +
          'repeated ones sent once, numbers that opted out of the company skipped; the message is written ' +
          'as processing and its recipients handed over ahead of bulk sends. The answer lists each number ' +
          'as queued, skipped_opted_out or invalid (with a reason); nobody to send to is a 400 with that ' +
          'list; over the monthly limit (recipients x SMS parts) a 403. It shows in Message Logs like any ' +
          'send.',
        body: z.union([ZTransactionalSendRequest, ZCreateMessageRequest]),
        response: { 201: z.union([ZTransactionalSendResponse, ZMessageResponse]) },
      },
    },
    async (request, reply) => {
      const idempotencyKey = readIdempotencyKey(request.headers['idempotency-key']);
      const body = request.body;
      const answer =
        'to' in body
          ? await sendTransactional(deps, contextOf(request), body, idempotencyKey)
          : await createMessage(deps, contextOf(request), body, { draft: true, idempotencyKey });
      return sendStoredAnswer(reply, answer);
    },
  );

  app.put(
    '/messages/:id',
    {
      preHandler: oneMessage,
      schema: {
        tags,
        description:
          'Changes a draft or a scheduled message (services, text, timing). A scheduled message moves to the new ' +
          'time, or is queued at once with scheduleType now. 409 once its send has started.',
        params: ZIdParam,
        body: ZUpdateMessageRequest,
        response: { 200: ZMessageResponse },
      },
    },
    async (request, reply) => {
      const answer = await updateMessage(deps, contextOf(request), request.params.id, request.body);
      return sendStoredAnswer(reply, answer);
    },
  );

  app.post(
    '/messages/:id/send',
    {
      preHandler: oneMessage,
      schema: {
        tags,
        description:
          'Sends a draft (at its scheduled time if it has a future one), or a scheduled message now. 409 for a ' +
          'message that is already queued or sent.' +
          IDEMPOTENCY,
        params: ZIdParam,
        response: { 200: ZMessageResponse },
      },
    },
    async (request, reply) => {
      const answer = await sendExistingMessage(
        deps,
        contextOf(request),
        request.params.id,
        readIdempotencyKey(request.headers['idempotency-key']),
      );
      return sendStoredAnswer(reply, answer);
    },
  );

  app.delete(
    '/messages/:id',
    {
      preHandler: oneMessage,
      schema: {
        tags,
        description:
          'Cancels a scheduled message (its queue job is removed and its reserved messages given back; the message is ' +
          'kept with status cancelled, who cancelled it and when) or deletes a draft; the audit trail records both. ' +
          '409 once its send has started, or when it was cancelled already.',
        params: ZIdParam,
        response: { 200: ZDeleteMessageResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deleteMessage(deps, contextOf(request), request.params.id),
    }),
  );

  app.get(
    '/messages/subscribers',
    {
      preHandler: previewers,
      schema: {
        tags,
        description:
          'The recipients a send to these services would reach: distinct active phone numbers (exact up to ' +
          '100,000 subscriptions, an upper bound beyond) and the first few of them.',
        querystring: ZRecipientPreviewQuery,
        response: { 200: ZRecipientPreviewResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await previewRecipients(deps, contextOf(request), request.query.serviceIds),
    }),
  );

  app.get(
    '/messages/merge-fields',
    {
      preHandler: previewers,
      schema: {
        tags,
        description:
          'For a text with merge fields ({{first_name}}, {{first_name|friend}}): what the recipients of these services hold ' +
          'for each field, read over all of them (longest value in characters, most GSM-7 units, whether any needs ' +
          'Unicode, whether some have none), and the first three recipients with their fields. The longest text, its ' +
          'parts and the 160-character rule follow from these by the same rule the send applies.',
        querystring: ZMergePreviewQuery,
        response: { 200: ZMergePreviewResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await previewMergeFields(
        deps,
        contextOf(request),
        request.query.serviceIds,
        request.query.fields,
      ),
    }),
  );
}
