import type { DeliveryUpdate } from './provider.ts';
import { e164 } from './report-phone.ts';

/** Africa's Talking's delivery `status` words (providers.md), lower-cased, onto ours. */
const STATUS_MAP: Record<string, DeliveryUpdate['status']> = {
  success: 'delivered',
  sent: 'sent',
  submitted: 'submitted',
  buffered: 'sent',
  rejected: 'rejected',
  failed: 'failed',
  absentsubscriber: 'failed',
  expired: 'expired',
};

const FINAL_WITHOUT_DELIVERY = new Set<DeliveryUpdate['status']>(['failed', 'rejected', 'expired']);

/**
 * One delivery report as Africa's Talking posts it, names and words in any case, NULs dropped (the
 * database refuses them). Null without a message id or a known status: the caller changes nothing.
 */
export function parseAfricasTalkingDeliveryReport(body: unknown, now = new Date()): DeliveryUpdate | null {
  if (!body || typeof body !== 'object') return null;
  const fields = new Map<string, string>();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const text = textOf(value);
    if (text !== null) fields.set(name.toLowerCase(), text);
  }
  const providerMessageId = fields.get('id');
  const providerStatus = fields.get('status');
  if (!providerMessageId || !providerStatus) return null;
  const status = STATUS_MAP[providerStatus.toLowerCase()];
  if (!status) return null;
  const failureReason = fields.get('failurereason') || null;
  return {
    providerMessageId,
    status,
    providerStatus,
    // AbsentSubscriber and Expired come without a failureReason: their status is the reason.
    error: FINAL_WITHOUT_DELIVERY.has(status) ? (failureReason ?? providerStatus) : failureReason,
    // The report carries no time of its own.
    at: now,
    phone: e164(fields.get('phonenumber')),
  };
}

/** A form field as text: the first of repeated values, NULs removed, trimmed; null if empty. */
function textOf(value: unknown): string | null {
  const single = Array.isArray(value) ? value[0] : value;
  if (typeof single !== 'string' && typeof single !== 'number') return null;
  const text = String(single).replaceAll('\u0000', '').trim();
  return text ? text.slice(0, 500) : null;
}
