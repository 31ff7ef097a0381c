import { z } from 'zod';

/**
 * What Africa's Talking posts to a company's subscription callback URL (form-encoded, or JSON
 * from tools that replay them). Unknown extra fields are tolerated: providers add them unannounced.
 */
const text = (max: number) => z.coerce.string().trim().min(1).max(max);

export const ZSubscriptionNotification = z.object({
  phoneNumber: text(40),
  shortCode: text(20),
  keyword: text(30),
  updateType: z
    .string()
    .trim()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(['addition', 'deletion'], { error: 'updateType must be addition or deletion' })),
});

export const ZBulkOptOut = z.object({ senderId: text(40), phoneNumber: text(40) });

export const ZInboundMessage = z.object({
  from: text(40),
  to: text(20),
  text: z.coerce.string().max(2000).default(''),
  id: z.coerce.string().trim().max(200).optional(),
  linkId: z.coerce.string().max(200).optional(),
  date: z.coerce.string().max(100).optional(),
  networkCode: z.coerce.string().max(20).optional(),
});

/** How far ahead of ours a provider's clock may run, and how late a message may reach us. */
export const INBOUND_DATE_TOLERANCE = { aheadMs: 5 * 60_000, behindMs: 7 * 24 * 60 * 60_000 };

/**
 * When an incoming message reached the provider: its `date` when readable and plausible, else
 * `now`. Africa's Talking's format is not documented: ISO 8601, or "YYYY-MM-DD hh:mm:ss" read as
 * UTC. A date in the future or too old (a wrong zone, a clock off, a replay) is not trusted.
 */
export function inboundReceivedAt(date: string | undefined, now: Date): Date {
  const value = date?.trim() ?? '';
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:?\d{2})?$/.exec(
    value,
  );
  if (!match) return now;
  const zone = match[3] ?? 'Z';
  const parsed = new Date(
    `${match[1]}T${match[2]}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`,
  );
  const time = parsed.getTime();
  if (Number.isNaN(time)) return now;
  const offset = time - now.getTime();
  if (offset > INBOUND_DATE_TOLERANCE.aheadMs || -offset > INBOUND_DATE_TOLERANCE.behindMs) return now;
  return parsed;
}

export type SubscriptionCallback =
  | { kind: 'subscription'; payload: z.infer<typeof ZSubscriptionNotification> }
  | { kind: 'opt-out'; payload: z.infer<typeof ZBulkOptOut> }
  | { kind: 'inbound'; payload: z.infer<typeof ZInboundMessage> }
  | { kind: 'invalid'; message: string };

const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'Invalid callback payload';
};

/** Tells the three notifications apart by their fields. */
export function classifySubscriptionCallback(body: unknown): SubscriptionCallback {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { kind: 'invalid', message: 'Expected a form-encoded or JSON body' };
  const fields = body as Record<string, unknown>;
  if ('updateType' in fields) {
    const parsed = ZSubscriptionNotification.safeParse(fields);
    return parsed.success
      ? { kind: 'subscription', payload: parsed.data }
      : { kind: 'invalid', message: firstIssue(parsed.error) };
  }
  if ('from' in fields || 'text' in fields) {
    const parsed = ZInboundMessage.safeParse(fields);
    return parsed.success
      ? { kind: 'inbound', payload: parsed.data }
      : { kind: 'invalid', message: firstIssue(parsed.error) };
  }
  if ('senderId' in fields) {
    const parsed = ZBulkOptOut.safeParse(fields);
    return parsed.success
      ? { kind: 'opt-out', payload: parsed.data }
      : { kind: 'invalid', message: firstIssue(parsed.error) };
  }
  return {
    kind: 'invalid',
    message: 'Unrecognised notification: expected a subscription update, an opt-out or an incoming message',
  };
}

/**
 * An opt-out request in an incoming text: STOP, or STOP followed by a keyword (any case, extra
 * spaces allowed). Returns the keyword (null for a plain STOP), or undefined when it is not one.
 */
export function readStopCommand(message: string): string | null | undefined {
  const words = message.trim().split(/\s+/).filter(Boolean);
  if (words[0]?.toUpperCase() !== 'STOP' || words.length > 2) return undefined;
  return words[1] ?? null;
}

const JOIN_WORDS = new Set(['JOIN', 'START', 'SUBSCRIBE', 'YES']);

/**
 * An opt-in request in an incoming text: the keyword alone, or with JOIN / START / SUBSCRIBE /
 * YES before or after it. Returns the candidate keyword in upper case, or undefined. Longer texts
 * ("news please") are messages, not sign-ups: joining must be deliberate.
 */
export function readJoinCommand(message: string): string | undefined {
  const words = message.trim().toUpperCase().split(/\s+/).filter(Boolean);
  if (words.length === 1) return words[0];
  if (words.length !== 2) return undefined;
  if (JOIN_WORDS.has(words[0])) return words[1];
  if (JOIN_WORDS.has(words[1])) return words[0];
  return undefined;
}
