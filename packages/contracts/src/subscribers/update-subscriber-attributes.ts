import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZSubscriberAttributes } from '../templates/merge-fields.ts';
import { ZSubscriber } from './subscriber.ts';

/**
 * PUT /subscriptions/subscribers/{id}/attributes: the subscriber's merge fields, all of them (a
 * field left out or blank is removed).
 */
export const ZUpdateSubscriberAttributesRequest = z.object({
  attributes: ZSubscriberAttributes,
});
export type TUpdateSubscriberAttributesRequest = z.input<typeof ZUpdateSubscriberAttributesRequest>;
export const ZUpdateSubscriberAttributesResponse = successEnvelope(
  z.object({ subscriber: ZSubscriber, message: z.string() }),
);
export const SUBSCRIBER_ATTRIBUTE_MESSAGES = {
  saved: (msisdn: string) => `Fields of ${msisdn} saved`,
} as const;
