import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

/** What an endpoint can subscribe to (the outbox, written by the trigger functions of messages and subscriptions). */
export const WEBHOOK_EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.received',
  'subscriber.subscribed',
  'subscriber.unsubscribed',
] as const;
export type TWebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The type of the event the "Send test event" button posts; never subscribed to, always sent. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

export const WEBHOOK_EVENT_LABELS: Record<TWebhookEventType, string> = {
  'message.sent': 'Message sent',
  'message.delivered': 'Message delivered',
  'message.failed': 'Message failed',
  'message.received': 'Message received (inbound)',
  'subscriber.subscribed': 'Subscriber subscribed',
  'subscriber.unsubscribed': 'Subscriber unsubscribed',
};

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = 'Webhook-Signature';
/** A receiver refuses a signature whose timestamp is further than this from its clock. */
export const WEBHOOK_REPLAY_WINDOW_SECONDS = 5 * 60;
/** Failed deliveries are retried (exponential backoff with jitter) this long, then the endpoint is disabled. */
export const WEBHOOK_RETRY_HOURS = 24;
/** Events per POST at most: a burst of events reaches an endpoint in few requests. */
export const WEBHOOK_BATCH_MAX = 500;
/**
 * An event every endpoint of its company has taken is deleted; one still waiting is kept this long
 * (well past the retries), so an endpoint enabled again within it gets the events of its gap.
 */
export const WEBHOOK_EVENTS_KEPT_DAYS = 7;
/** The deliveries list keeps this many days of requests. */
export const WEBHOOK_DELIVERIES_KEPT_DAYS = 30;
export const WEBHOOK_SECRET_START = 'whsec_';
export const WEBHOOK_URL_MAX = 2000;
export const WEBHOOK_DESCRIPTION_MAX = 200;

export const WEBHOOK_MESSAGES = {
  urlRequired: 'Endpoint URL is required',
  urlInvalid: 'Enter a valid URL, e.g. https://example.com/webhooks',
  urlTooLong: `URL must be at most ${WEBHOOK_URL_MAX} characters`,
  urlNotHttps: 'Webhook URLs must use https://',
  urlCredentials: 'Webhook URLs must not contain a user name or password',
  urlNotPublic: 'Webhook URL refused: it points at a private, loopback or link-local address',
  eventsRequired: 'Choose at least one event',
  descriptionTooLong: `Description must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`,
  notFound: 'Webhook endpoint not found',
  created: 'Webhook endpoint created',
  updated: 'Webhook endpoint updated',
  deleted: 'Webhook endpoint deleted',
  secretShownOnce: "Copy this signing secret now. You won't see it again.",
  fetchFailed: 'Failed to load webhook endpoints',
  testSent: 'Test event sent',
  testFailed: 'Test event failed',
  disabledAfterFailures: `Disabled after ${WEBHOOK_RETRY_HOURS} hours of failed deliveries`,
  disabledNotice: (url: string) =>
    `Webhook endpoint ${url} was disabled after ${WEBHOOK_RETRY_HOURS} hours of failed deliveries. Fix it and enable it again.`,
} as const;

const ZUrl = z
  .string({ error: WEBHOOK_MESSAGES.urlRequired })
  .trim()
  .min(1, WEBHOOK_MESSAGES.urlRequired)
  .max(WEBHOOK_URL_MAX, WEBHOOK_MESSAGES.urlTooLong)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, WEBHOOK_MESSAGES.urlInvalid);

const ZEventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES), { error: WEBHOOK_MESSAGES.eventsRequired })
  .min(1, WEBHOOK_MESSAGES.eventsRequired)
  .transform((types) => WEBHOOK_EVENT_TYPES.filter((type) => types.includes(type)));

const ZDescription = z.string().trim().max(WEBHOOK_DESCRIPTION_MAX, WEBHOOK_MESSAGES.descriptionTooLong);

export const ZWebhookEndpoint = z.object({
  id: z.number().int(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  secretPrefix: z.string(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  disabledAt: z.string().nullable(),
  failingSince: z.string().nullable(),
  pendingEvents: z.number().int(),
  createdAt: z.string(),
});
export type TWebhookEndpoint = z.infer<typeof ZWebhookEndpoint>;

export const ZWebhookDelivery = z.object({
  id: z.number().int(),
  eventTypes: z.array(z.string()),
  eventCount: z.number().int(),
  firstEventId: z.string().nullable(),
  lastEventId: z.string().nullable(),
  attempt: z.number().int(),
  isTest: z.boolean(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  succeeded: z.boolean(),
  createdAt: z.string(),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;

export const ZCreateWebhookRequest = z.object({
  url: ZUrl,
  eventTypes: ZEventTypes,
  description: ZDescription.optional().default(''),
});
export type TCreateWebhookRequest = z.input<typeof ZCreateWebhookRequest>;

/** Any of the fields; `enabled: true` enables a disabled endpoint again (its deliveries resume). */
export const ZUpdateWebhookRequest = z.object({
  url: ZUrl.optional(),
  eventTypes: ZEventTypes.optional(),
  description: ZDescription.optional(),
  enabled: z.boolean().optional(),
});
export type TUpdateWebhookRequest = z.input<typeof ZUpdateWebhookRequest>;

export const ZListWebhooksResponse = successEnvelope(z.object({ endpoints: z.array(ZWebhookEndpoint) }));
/** `secret` is the signing secret, in this answer only. */
export const ZCreateWebhookResponse = successEnvelope(
  z.object({ endpoint: ZWebhookEndpoint, secret: z.string() }),
);
export const ZWebhookEndpointResponse = successEnvelope(z.object({ endpoint: ZWebhookEndpoint }));
export const ZDeleteWebhookResponse = successEnvelope(z.object({ id: z.number().int() }));
export const ZListWebhookDeliveriesResponse = successEnvelope(
  z.object({ deliveries: z.array(ZWebhookDelivery) }),
);
export const ZWebhookTestResponse = successEnvelope(z.object({ delivery: ZWebhookDelivery }));

/** One event as an endpoint receives it, in the body `{ "events": [...] }`. */
export type TWebhookEventBody = {
  id: string;
  type: string;
  created: string;
  data: Record<string, unknown>;
};
