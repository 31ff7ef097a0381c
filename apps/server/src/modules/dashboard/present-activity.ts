import {
  ACTIVITY_ACTORS,
  RECENT_ACTIVITY_LIMIT,
  type TActivityType,
  type TRecentActivity,
} from '@sms/contracts/dashboard/dashboard-stats';
import { isoString } from '../../lib/iso-time.ts';
import type { AuditRow, RecentMessageRow } from './dashboard.repository.ts';

/** What the activity feed needs of a message (the dashboard reads more). */
type MessageRow = Omit<RecentMessageRow, 'updated_at'>;

const TYPES: Record<string, TActivityType> = {
  SERVICE: 'service',
  SUBSCRIBER: 'subscriber',
  MESSAGE: 'message',
};

const VERBS: Record<string, string> = {
  CREATE: 'created',
  UPDATE: 'updated',
  DELETE: 'deleted',
  APPROVE: 'approved',
  REJECT: 'rejected',
  SUSPEND: 'suspended',
  IMPORT: 'imported',
  REGENERATE: 'regenerated',
};

/** Phone numbers stay whole only for roles that may open subscribers. */
export function maskNumber(msisdn: string) {
  return msisdn.length <= 6 ? '••••' : `${msisdn.slice(0, 5)}•••${msisdn.slice(-3)}`;
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
const count = (value: unknown) => (typeof value === 'number' ? value : 0);
const quote = (content: string) => `“${content.length > 48 ? `${content.slice(0, 45)}…` : content}”`;

/** What the viewer may see of the feed: whole phone numbers, and platform staff's names. */
export type ActivityView = { showNumbers: boolean; showStaffNames: boolean };

function actorOf(row: AuditRow, view: ActivityView) {
  if (row.by_platform_staff && !view.showStaffNames) return ACTIVITY_ACTORS.platformStaff;
  return row.user_name ?? ACTIVITY_ACTORS.system;
}

function describeAudit(row: AuditRow, view: ActivityView): string {
  const { showNumbers } = view;
  const who = actorOf(row, view);
  const name = text(row.details.name) ?? text(row.details.serviceName);
  const number = text(row.details.msisdn);
  const shownNumber = number ? (showNumbers ? number : maskNumber(number)) : null;
  if (row.entity === 'SUBSCRIBER') {
    const service = text(row.details.serviceName);
    if (row.action === 'IMPORT')
      return `${who} imported ${count(row.details.imported)} subscriber(s)${service ? ` into ${service}` : ''}`;
    if (row.action === 'CREATE')
      return `${shownNumber ?? 'A number'} subscribed${service ? ` to ${service}` : ''}`;
    if (row.action === 'DELETE') return `${shownNumber ?? 'A number'} unsubscribed`;
  }
  const entity = row.entity.toLowerCase();
  const verb = VERBS[row.action] ?? row.action.toLowerCase();
  return `${who} ${verb} ${entity}${name ? ` ${name}` : ''}`;
}

const OUTBOUND_VERBS: Record<string, string> = {
  pending: 'Draft',
  queued: 'Queued',
  scheduled: 'Scheduled',
  processing: 'Sending',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
};

function describeMessage(row: MessageRow, showNumbers: boolean): string {
  if (row.direction === 'inbound') {
    const from = row.msisdn ? (showNumbers ? row.msisdn : maskNumber(row.msisdn)) : 'Unknown';
    return `Received from ${from}: ${quote(row.content)}`;
  }
  const to =
    row.recipient_count !== null
      ? `${row.recipient_count.toLocaleString('en-US')} recipient(s)`
      : row.msisdn
        ? showNumbers
          ? row.msisdn
          : maskNumber(row.msisdn)
        : 'a recipient';
  const via = row.service_name ? ` via ${row.service_name}` : '';
  return `${OUTBOUND_VERBS[row.status] ?? row.status} to ${to}${via}: ${quote(row.content)}`;
}

/** The audit trail and the message events of the scope, newest first, as one list. */
export function presentRecentActivity(
  audit: AuditRow[],
  messages: MessageRow[],
  view: ActivityView,
): TRecentActivity[] {
  const items = [
    ...audit.map((row) => ({
      id: `audit-${row.id}`,
      type: TYPES[row.entity] ?? 'other',
      message: describeAudit(row, view),
      time: isoString(row.created_at),
    })),
    ...messages.map((row) => ({
      id: `message-${row.id}`,
      type: 'message' as const,
      message: describeMessage(row, view.showNumbers),
      time: isoString(row.created_at),
    })),
  ];
  return items.sort((a, b) => b.time.localeCompare(a.time)).slice(0, RECENT_ACTIVITY_LIMIT);
}
