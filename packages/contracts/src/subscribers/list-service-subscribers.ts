import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZOptionalQueryText, ZPage } from '../common/pagination.ts';
import {
  SUBSCRIPTION_STATUSES,
  ZPagedSubscribersMeta,
  ZSubscriber,
  ZSubscriberPageSize,
} from './subscriber.ts';

export const ZListServiceSubscribersQuery = z.object({
  page: ZPage,
  limit: ZSubscriberPageSize,
  /** The subscription's status; active by default. */
  status: z
    .enum(SUBSCRIPTION_STATUSES, { error: `status must be one of ${SUBSCRIPTION_STATUSES.join(', ')}` })
    .default('active'),
  search: ZOptionalQueryText,
});
export type TListServiceSubscribersQuery = z.input<typeof ZListServiceSubscribersQuery>;

export const ZServiceSubscriber = ZSubscriber.extend({
  subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES),
  source: z.string(),
  subscribedAt: z.string(),
  unsubscribedAt: z.string().nullable(),
});
export type TServiceSubscriber = z.infer<typeof ZServiceSubscriber>;

export const ZListServiceSubscribersData = ZPagedSubscribersMeta.extend({
  subscribers: z.array(ZServiceSubscriber),
});
export const ZListServiceSubscribersResponse = successEnvelope(ZListServiceSubscribersData);
