import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

export const ZDeleteCompanyQuery = z.object({
  cascade: z
    .enum(['true', 'false'], { error: 'cascade must be true or false' })
    .optional()
    .transform((value) => value === 'true'),
});
export type TDeleteCompanyQuery = z.input<typeof ZDeleteCompanyQuery>;

export const ZDeleteCompanyResponse = successEnvelope(
  z.object({
    deleted: z.literal(true),
    removed: z.object({
      users: z.number().int(),
      services: z.number().int(),
      subscribers: z.number().int(),
      messages: z.number().int(),
    }),
  }),
);

/** The refusal when the company still holds data; the console shows it and asks again. */
export function companyHasDataMessage(counts: {
  users: number;
  services: number;
  subscribers: number;
  messages: number;
}) {
  const parts = (
    [
      [counts.users, 'user'],
      [counts.services, 'service'],
      [counts.subscribers, 'subscriber'],
      [counts.messages, 'message'],
    ] as const
  )
    .filter(([count]) => count > 0)
    .map(([count, noun]) => `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`);
  return `This company still has ${parts.join(', ')}. Deleting the company permanently deletes these too.`;
}
