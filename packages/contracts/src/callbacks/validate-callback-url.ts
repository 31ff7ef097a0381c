import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { CALLBACK_TYPES } from './callback-urls.ts';

export const ZValidateCallbackUrlParams = z.object({
  type: z.enum(CALLBACK_TYPES, { error: `type must be one of ${CALLBACK_TYPES.join(', ')}` }),
  companyId: z.string().max(20),
  token: z.string().max(300),
});

/** Only whether the URL is current: the same answer for an unknown company and a wrong token. */
export const ZValidateCallbackUrlResponse = successEnvelope(z.object({ valid: z.boolean() }));
export type TValidateCallbackUrlResponse = z.infer<typeof ZValidateCallbackUrlResponse>;
