import { z } from 'zod';
import { ZWholeNumber } from '../common/pagination.ts';

export const SUBSCRIBER_STATUSES = ['active', 'unsubscribed', 'pending'] as const;
export type TSubscriberStatus = (typeof SUBSCRIBER_STATUSES)[number];
export const SUBSCRIPTION_STATUSES = ['active', 'unsubscribed'] as const;
export type TSubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Spec section 9: 20 per page by default, with these options. */
export const SUBSCRIBER_PAGE_SIZES = [10, 20, 50, 100] as const;
export const SUBSCRIBER_DEFAULT_PAGE_SIZE = 20;
/** Filtered counts stop here ("10,000+"): counting every match of a broad search would scan everything. */
export const SUBSCRIBER_COUNT_CAP = 10_000;

export const SUBSCRIBER_MESSAGES = {
  phoneRequired: 'Phone number is required',
  phoneInvalid: (input: string) => `${input} is not a valid phone number`,
  empty: 'No subscribers found',
  loadFailedTitle: 'Failed to load data.',
  loadFailed: 'Failed to load subscribers and services',
  subscribed: (msisdn: string, service: string) => `${msisdn} subscribed to ${service}`,
  alreadySubscribed: (msisdn: string, service: string) => `${msisdn} is already subscribed to ${service}`,
  unsubscribed: (msisdn: string, service: string) => `${msisdn} unsubscribed from ${service}`,
  notSubscribed: (msisdn: string, service: string) => `${msisdn} is not subscribed to ${service}`,
  pageSize: `limit must be one of ${SUBSCRIBER_PAGE_SIZES.join(', ')}`,
} as const;

export const ZSubscriber = z.object({
  id: z.number().int(),
  msisdn: z.string(),
  status: z.enum(SUBSCRIBER_STATUSES),
  companyId: z.number().int(),
  /** The owning company, so a system_admin's cross-company list can say whose number it is. */
  company: z.object({ name: z.string() }),
  createdAt: z.string(),
  /** Ids of the services this number is actively subscribed to. */
  active_services: z.array(z.number().int()),
  /** Its merge fields (first_name, language...): set by an import's extra columns, edited on the subscriber. */
  attributes: z.record(z.string(), z.string()),
});
export type TSubscriber = z.infer<typeof ZSubscriber>;

export const ZPhoneNumberBody = z.object({
  phoneNumber: z
    .string({ error: SUBSCRIBER_MESSAGES.phoneRequired })
    .trim()
    .min(1, SUBSCRIBER_MESSAGES.phoneRequired)
    .max(40, 'Phone number is too long'),
});
export type TPhoneNumberBody = z.infer<typeof ZPhoneNumberBody>;

export const ZSubscriberPageSize = ZWholeNumber(SUBSCRIBER_MESSAGES.pageSize)
  .refine((value) => (SUBSCRIBER_PAGE_SIZES as readonly number[]).includes(value), {
    message: SUBSCRIBER_MESSAGES.pageSize,
  })
  .default(SUBSCRIBER_DEFAULT_PAGE_SIZE);

export const ZPagedSubscribersMeta = z.object({
  totalItems: z.number().int(),
  totalPages: z.number().int(),
  currentPage: z.number().int(),
  /** false when totalItems stopped at SUBSCRIBER_COUNT_CAP: there are at least that many. */
  totalIsExact: z.boolean(),
});
