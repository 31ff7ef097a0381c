import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { QUERY_ID_MESSAGES, ZOptionalQueryId, ZOptionalQueryText } from '../common/pagination.ts';
import { SERVICE_STATUSES, ZService } from './service.ts';

/** Services per company are few (a plan allows tens), so the list comes whole. */
export const ZListServicesQuery = z.object({
  companyId: ZOptionalQueryId(QUERY_ID_MESSAGES.companyId),
  status: z
    .union([z.enum(SERVICE_STATUSES), z.literal('')], {
      error: `status must be one of ${SERVICE_STATUSES.join(', ')}`,
    })
    .optional()
    .transform((value) => (value ? value : undefined)),
  search: ZOptionalQueryText,
});
export type TListServicesQuery = z.input<typeof ZListServicesQuery>;

export const ZListServicesData = z.object({ services: z.array(ZService), totalItems: z.number().int() });
export type TListServicesData = z.infer<typeof ZListServicesData>;
export const ZListServicesResponse = successEnvelope(ZListServicesData);
