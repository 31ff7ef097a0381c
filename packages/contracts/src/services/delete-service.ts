import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

export const ZDeleteServiceQuery = z.object({
  force: z
    .enum(['true', 'false', '1', '0'], { error: 'force must be true or false' })
    .optional()
    .transform((value) => value === 'true' || value === '1'),
});
export type TDeleteServiceQuery = z.input<typeof ZDeleteServiceQuery>;

export const ZDeleteServiceData = z.object({
  id: z.number().int(),
  deleted: z.literal(true),
  /** Active subscriptions the deletion ended. */
  subscriptionsEnded: z.number().int(),
  /** Messages kept in the history, no longer linked to the service. */
  messagesKept: z.number().int(),
});
export const ZDeleteServiceResponse = successEnvelope(ZDeleteServiceData);
export type TDeleteServiceResponse = z.infer<typeof ZDeleteServiceResponse>;
