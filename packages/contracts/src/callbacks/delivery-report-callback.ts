import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

/**
 * The answer to a provider's delivery-report callback (POST /callbacks/dlr/{companyId}/{token}):
 * how many reports of the request were accepted. Accepted means stored durably; they are applied to
 * their recipients shortly after, so the answer cannot say what each one changed. A provider only
 * needs the 2xx; an unreadable report is a 400 and a wrong URL a 404, and neither stores anything.
 */
export const ZDeliveryReportCallbackResponse = successEnvelope(
  z.object({ accepted: z.number().int().nonnegative() }),
);
export type TDeliveryReportCallbackResponse = z.infer<typeof ZDeliveryReportCallbackResponse>;
