import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZPage, ZPageSize } from '../common/pagination.ts';
import { DELIVERY_STATUSES, type TDeliveryStatus, ZDeliveryReport } from './message.ts';

/** The details modal pages a large send's recipients this many at a time. */
export const DELIVERY_REPORT_PAGE_SIZE = 25;

export const ZDeliveryReportsQuery = z.object({
  page: ZPage,
  limit: ZPageSize(DELIVERY_REPORT_PAGE_SIZE),
  status: z
    .union([z.enum(DELIVERY_STATUSES), z.literal('')], {
      error: `status must be one of ${DELIVERY_STATUSES.join(', ')}`,
    })
    .optional()
    .transform((value) => (value ? value : undefined)),
});
export type TDeliveryReportsQuery = { page?: number; limit?: number; status?: TDeliveryStatus };

export const ZDeliveryReportsPage = z.object({
  deliveryReports: z.array(ZDeliveryReport),
  currentPage: z.number().int(),
  totalPages: z.number().int(),
  totalItems: z.number().int(),
});
export type TDeliveryReportsPage = z.infer<typeof ZDeliveryReportsPage>;

/** GET /messages/{id}/delivery-reports: one row per recipient, in the order they were resolved. */
export const ZDeliveryReportsResponse = successEnvelope(ZDeliveryReportsPage);
