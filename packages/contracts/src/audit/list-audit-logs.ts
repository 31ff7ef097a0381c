import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZPage, ZPageSize } from '../common/pagination.ts';
import { AUDIT_ACTIONS, AUDIT_ENTITIES, AUDIT_LOG_LIMIT, ZAuditEntry } from './audit-log.ts';

export const AUDIT_MESSAGES = {
  empty: 'No audit logs found',
  loadFailed: 'Failed to load audit logs',
  badDate: 'Dates must be written YYYY-MM-DD or as an ISO date-time',
  badRange: "'from' must not be after 'to'",
} as const;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether the text starts with a real calendar day (2026-02-30 does not: Date would roll it to March). */
function startsWithRealDay(text: string) {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

/** A date (YYYY-MM-DD, read in UTC) or an ISO date-time; empty means no bound. */
const ZDateBound = (endOfDay: boolean) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, context) => {
      if (!value) return undefined;
      const text = DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value;
      const date = new Date(text);
      if (Number.isNaN(date.getTime()) || !startsWithRealDay(value)) {
        context.addIssue({ code: 'custom', message: AUDIT_MESSAGES.badDate });
        return z.NEVER;
      }
      // A bare 'to' date includes that whole day.
      if (endOfDay && DATE_ONLY.test(value)) return new Date(date.getTime() + 86_400_000 - 1);
      return date;
    });

const optionalEnum = <T extends readonly [string, ...string[]]>(values: T, name: string) =>
  z
    .union([z.enum(values), z.literal('')], { error: `${name} must be one of ${values.join(', ')}` })
    .optional()
    .transform((value) => (value ? value : undefined));

export const ZListAuditLogsQuery = z
  .object({
    from: ZDateBound(false),
    to: ZDateBound(true),
    action: optionalEnum(AUDIT_ACTIONS, 'action'),
    entity: optionalEnum(AUDIT_ENTITIES, 'entity'),
    page: ZPage,
    limit: ZPageSize(AUDIT_LOG_LIMIT),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    message: AUDIT_MESSAGES.badRange,
    path: ['from'],
  });
/** What a client sends: dates as YYYY-MM-DD (or ISO date-times). */
export type TListAuditLogsQuery = {
  from?: string;
  to?: string;
  action?: (typeof AUDIT_ACTIONS)[number] | '';
  entity?: (typeof AUDIT_ENTITIES)[number] | '';
  page?: number;
  limit?: number;
};

export const ZListAuditLogsData = z.object({
  auditLogs: z.array(ZAuditEntry),
  currentPage: z.number().int(),
  totalPages: z.number().int(),
  totalItems: z.number().int(),
});
export type TListAuditLogsData = z.infer<typeof ZListAuditLogsData>;
export const ZListAuditLogsResponse = successEnvelope(ZListAuditLogsData);
