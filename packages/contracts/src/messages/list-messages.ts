import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import {
  QUERY_ID_MESSAGES,
  ZOptionalQueryId,
  ZOptionalQueryText,
  ZPage,
  ZPageSize,
} from '../common/pagination.ts';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, type TMessageStatus, ZMessage } from './message.ts';

export const MESSAGE_PAGE_SIZE = 20;
/**
 * A search's total stops here at most ("10,000 or more"): its matches are counted per request. Every
 * other total and the chips' counts come from per-company counters and are exact at any size.
 */
export const MESSAGE_COUNT_CAP = 10_000;

/** How far a search's total counts past the page asked for: see searchCountCap. */
export const MESSAGE_SEARCH_COUNT_STEP = 1_000;

/**
 * Where a search's total stops for a page starting at `offset`: the next multiple of
 * MESSAGE_SEARCH_COUNT_STEP past the page's end, at most MESSAGE_COUNT_CAP. Page 1 counts up to
 * 1,000 ("1,000 or more messages", 50 pages of 20), page 50 up to 2,000, and so on: every match up to
 * the cap is still reached page by page, and the first pages cost a count of 1,001 matches, not
 * 10,001 (about 3.5 ms against 12 ms of database time for a common word at 1,000,000 messages).
 */
export function searchCountCap(offset: number, limit: number) {
  const steps = Math.floor((offset + limit) / MESSAGE_SEARCH_COUNT_STEP) + 1;
  return Math.min(MESSAGE_COUNT_CAP, steps * MESSAGE_SEARCH_COUNT_STEP);
}

/** Spec section 2: the status filter's options, in its order, and Cancelled, which the list shows too. */
export const MESSAGE_STATUS_FILTERS = [
  'pending',
  'queued',
  'scheduled',
  'sent',
  'delivered',
  'failed',
  'received',
  'cancelled',
] as const satisfies readonly TMessageStatus[];

export const MESSAGE_DIRECTION_LABELS = { inbound: 'Inbound', outbound: 'Outbound' } as const;

export const MESSAGE_STATUS_LABELS: Record<TMessageStatus, string> = {
  pending: 'Pending',
  queued: 'Queued',
  scheduled: 'Scheduled',
  processing: 'Processing',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
  received: 'Received',
  cancelled: 'Cancelled',
};

/**
 * Spec section 2's quick filter chips, in order. A chip is a group of statuses: Pending is
 * everything not yet handed to the network (drafts, queued, being processed), Sent is everything
 * handed over (sent, and delivered since), so a message does not vanish from Sent once delivered.
 */
export const MESSAGE_CHIPS = [
  { id: 'scheduled', label: 'Scheduled Messages', statuses: ['scheduled'] },
  { id: 'pending', label: 'Pending', statuses: ['pending', 'queued', 'processing'] },
  { id: 'sent', label: 'Sent', statuses: ['sent', 'delivered'] },
  { id: 'all', label: 'All Messages', statuses: null },
] as const satisfies readonly { id: string; label: string; statuses: readonly TMessageStatus[] | null }[];
export const MESSAGE_CHIP_IDS = MESSAGE_CHIPS.map((chip) => chip.id);
export type TMessageChip = (typeof MESSAGE_CHIPS)[number]['id'];

export function chipStatuses(chip: TMessageChip): readonly TMessageStatus[] | null {
  return MESSAGE_CHIPS.find((entry) => entry.id === chip)?.statuses ?? null;
}

/** "?status=" and "?direction=" (the console's "all") mean no filter. */
function optionalChoice<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z
    .union([z.enum(values), z.literal('')], { error: `${name} must be one of ${values.join(', ')}` })
    .optional()
    .transform((value) => (value ? value : undefined));
}

export const ZListMessagesQuery = z.object({
  page: ZPage,
  limit: ZPageSize(MESSAGE_PAGE_SIZE),
  direction: optionalChoice('direction', MESSAGE_DIRECTIONS),
  status: optionalChoice('status', MESSAGE_STATUSES),
  /**
   * Case-insensitive, anywhere in the content or the msisdn. Text without three letters or digits
   * in a row (too short for the trigram index) is looked for in the newest 10,000 messages only;
   * counts and pages narrowed by another filter too look at the newest 10,001 matches.
   */
  search: ZOptionalQueryText,
  chip: z
    .enum(MESSAGE_CHIP_IDS as [TMessageChip, ...TMessageChip[]], {
      error: `chip must be one of ${MESSAGE_CHIP_IDS.join(', ')}`,
    })
    .default('all'),
  /** system_admin only: one company; ignored for everyone else. */
  companyId: ZOptionalQueryId(QUERY_ID_MESSAGES.companyId),
});
/** What the console sends. */
export type TListMessagesQuery = {
  page?: number;
  limit?: number;
  direction?: (typeof MESSAGE_DIRECTIONS)[number];
  status?: TMessageStatus;
  search?: string;
  chip?: TMessageChip;
  companyId?: number;
};

/** A count that stopped at its cap says so: exact false means "at least total" (a search's only). */
export const ZCappedCount = z.object({ total: z.number().int(), exact: z.boolean() });
export type TCappedCount = z.infer<typeof ZCappedCount>;

export const ZListMessagesData = z.object({
  messages: z.array(ZMessage),
  currentPage: z.number().int(),
  totalPages: z.number().int(),
  totalItems: z.number().int(),
  /** false only for a search whose count stopped at its cap (searchCountCap): totalItems is then a floor. */
  totalIsExact: z.boolean(),
  /**
   * Per chip, over the caller's messages (one company's for a system_admin who picked one); the
   * other filters do not narrow them. Exact.
   */
  counts: z.object({
    scheduled: ZCappedCount,
    pending: ZCappedCount,
    sent: ZCappedCount,
    all: ZCappedCount,
  }),
});
export type TListMessagesData = z.infer<typeof ZListMessagesData>;
export const ZListMessagesResponse = successEnvelope(ZListMessagesData);
