import { ZIdParam } from '@sms/contracts/common/envelope';
import {
  ZCreateWebhookRequest,
  ZCreateWebhookResponse,
  ZDeleteWebhookResponse,
  ZListWebhookDeliveriesResponse,
  ZListWebhooksResponse,
  ZUpdateWebhookRequest,
  ZWebhookEndpointResponse,
  ZWebhookTestResponse,
} from '@sms/contracts/webhooks/webhook';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  sendTestEvent,
  updateEndpoint,
} from './webhooks.service.ts';

const tags = ['webhooks'];

/** A company admin's own company's webhook endpoints; no API key can call these. */
export function webhooksRoutes(app: ApiInstance, deps: AppDeps) {
  const admins = guard(deps, 'company_admin');
  const oneEndpoint = guard(deps, 'company_admin', { idOf: 'webhook_endpoints' });

  app.get(
    '/webhooks',
    {
      preHandler: admins,
      schema: {
        tags,
        description:
          "Your company's webhook endpoints (never their secrets), with their state: a disabled endpoint says why.",
        response: { 200: ZListWebhooksResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { endpoints: await listEndpoints(deps, contextOf(request)) },
    }),
  );

  app.post(
    '/webhooks',
    {
      preHandler: admins,
      schema: {
        tags,
        description:
          'A new endpoint: an https URL (no private, loopback or link-local address, as for provider settings) and the events it receives. ' +
          'Each POST to it carries `{ "events": [...] }` signed in the `Webhook-Signature` header (`t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`). ' +
          'The answer holds the signing secret, the only time it is shown.',
        body: ZCreateWebhookRequest,
        response: { 201: ZCreateWebhookResponse },
      },
    },
    async (request, reply) => {
      const data = await createEndpoint(deps, contextOf(request), request.body);
      return reply.code(201).send({ success: true as const, data });
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      preHandler: oneEndpoint,
      schema: {
        tags,
        description:
          'Changes an endpoint. `enabled: true` enables a disabled one again: its deliveries resume where they stopped.',
        params: ZIdParam,
        body: ZUpdateWebhookRequest,
        response: { 200: ZWebhookEndpointResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { endpoint: await updateEndpoint(deps, contextOf(request), request.params.id, request.body) },
    }),
  );

  app.delete(
    '/webhooks/:id',
    {
      preHandler: oneEndpoint,
      schema: {
        tags,
        description: 'Deletes an endpoint and its delivery history; nothing more is posted to it.',
        params: ZIdParam,
        response: { 200: ZDeleteWebhookResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deleteEndpoint(deps, contextOf(request), request.params.id),
    }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      preHandler: oneEndpoint,
      schema: {
        tags,
        description:
          "The endpoint's latest 100 deliveries, newest first: each POST's events, attempt, response code, duration and time.",
        params: ZIdParam,
        response: { 200: ZListWebhookDeliveriesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { deliveries: await listDeliveries(deps, contextOf(request), request.params.id) },
    }),
  );

  app.post(
    '/webhooks/:id/test',
    {
      preHandler: oneEndpoint,
      schema: {
        tags,
        description:
          'Posts one signed `webhook.test` event to the endpoint now and answers with the delivery (its response code or error).',
        params: ZIdParam,
        response: { 200: ZWebhookTestResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { delivery: await sendTestEvent(deps, contextOf(request), request.params.id) },
    }),
  );
}
