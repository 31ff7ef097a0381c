import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { QUERY_ID_MESSAGES, ZOptionalQueryId, ZOptionalQueryText, ZPage } from '../common/pagination.ts';
import {
  SUBSCRIBER_STATUSES,
  ZPagedSubscribersMeta,
  ZSubscriber,
  ZSubscriberPageSize,
} from './subscriber.ts';

const ZStatusFilter = z
  .union([z.enum(SUBSCRIBER_STATUSES), z.literal('')], {
    error: `status must be one of ${SUBSCRIBER_STATUSES.join(', ')}`,
  })
  .optional()
  .transform((value) => (value ? value : undefined));

/**
 * The filters shared by the list and the CSV export. search finds numbers that start with its
 * digits (international, or national with a leading 0) or end with them; one or two digits match
 * anywhere in the number.
 */
export const ZSubscriberFilters = z.object({
  status: ZStatusFilter,
  search: ZOptionalQueryText,
  /** system_admin only: one company; ignored for everyone else. */
  companyId: ZOptionalQueryId(QUERY_ID_MESSAGES.companyId),
  serviceId: ZOptionalQueryId(QUERY_ID_MESSAGES.serviceId),
});
export type TSubscriberFilters = z.input<typeof ZSubscriberFilters>;

export const ZListSubscribersQuery = ZSubscriberFilters.extend({ page: ZPage, limit: ZSubscriberPageSize });
export type TListSubscribersQuery = z.input<typeof ZListSubscribersQuery>;

export const ZListSubscribersData = ZPagedSubscribersMeta.extend({ subscribers: z.array(ZSubscriber) });
export type TListSubscribersData = z.infer<typeof ZListSubscribersData>;
export const ZListSubscribersResponse = successEnvelope(ZListSubscribersData);
