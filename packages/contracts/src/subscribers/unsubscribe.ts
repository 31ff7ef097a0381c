import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZPhoneNumberBody, ZSubscriber } from './subscriber.ts';

/** DELETE /services/{id}/unsubscribe with body phoneNumber. Unsubscribing twice changes nothing. */
export const ZUnsubscribeRequest = ZPhoneNumberBody;
export type TUnsubscribeRequest = z.infer<typeof ZUnsubscribeRequest>;
export const ZUnsubscribeData = z.object({
  subscriber: ZSubscriber.nullable(),
  changed: z.boolean(),
  message: z.string(),
});
export type TUnsubscribeData = z.infer<typeof ZUnsubscribeData>;
export const ZUnsubscribeResponse = successEnvelope(ZUnsubscribeData);
