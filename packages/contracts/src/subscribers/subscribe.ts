import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZPhoneNumberBody, ZSubscriber } from './subscriber.ts';

/** POST /services/{id}/subscribe. The number is normalised to E.164; subscribing twice changes nothing. */
export const ZSubscribeRequest = ZPhoneNumberBody;
export type TSubscribeRequest = z.infer<typeof ZSubscribeRequest>;
export const ZSubscribeData = z.object({
  subscriber: ZSubscriber,
  /** false when the number was already subscribed. */
  changed: z.boolean(),
  message: z.string(),
});
export type TSubscribeData = z.infer<typeof ZSubscribeData>;
export const ZSubscribeResponse = successEnvelope(ZSubscribeData);
