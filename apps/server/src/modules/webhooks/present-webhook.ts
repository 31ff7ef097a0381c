import type { TWebhookDelivery, TWebhookEndpoint } from '@sms/contracts/webhooks/webhook';
import type { WebhookDeliveryRow, WebhookEndpointRow } from './webhooks.repository.ts';

export function presentEndpoint(row: WebhookEndpointRow): TWebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types as TWebhookEndpoint['eventTypes'],
    secretPrefix: row.secret_prefix,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    failingSince: row.failing_since?.toISOString() ?? null,
    pendingEvents: row.pending_events,
    createdAt: row.created_at.toISOString(),
  };
}

export function presentDelivery(row: WebhookDeliveryRow): TWebhookDelivery {
  return {
    id: row.id,
    eventTypes: row.event_types,
    eventCount: row.event_count,
    firstEventId: row.first_event_id === null ? null : `evt_${row.first_event_id}`,
    lastEventId: row.last_event_id === null ? null : `evt_${row.last_event_id}`,
    attempt: row.attempt,
    isTest: row.is_test,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error: row.error,
    succeeded: row.succeeded,
    createdAt: row.created_at.toISOString(),
  };
}
