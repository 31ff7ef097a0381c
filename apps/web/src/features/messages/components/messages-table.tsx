import { MESSAGE_DIRECTION_LABELS } from '@sms/contracts/messages/list-messages';
import type { TMessage } from '@sms/contracts/messages/message';
import { Button } from '../../../components/button.tsx';
import { formatDateTime, formatDateTimeWithZone } from '../../../lib/format-date.ts';
import { countOf } from '../../../lib/plural.ts';
import { describeCancellation, HandoverProgress } from './message-progress.tsx';
import { MessageStatusBadge } from './message-status-badge.tsx';

const CONTENT_PREVIEW_LENGTH = 60;

function truncate(text: string, length: number) {
  return text.length > length ? `${text.slice(0, length).trimEnd()}…` : text;
}

/** pg-boss ids are UUIDs: the table shows their first block (the details show the whole id). */
export function shortJobId(id: string) {
  return /^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(id) ? id.slice(0, 8) : id;
}

/** Spec section 2's Recipients column. */
export function describeRecipients(message: TMessage) {
  if (message.direction === 'inbound') return message.msisdn || 'Unknown';
  if (message.recipient_count !== null) return countOf(message.recipient_count, 'recipient', 'recipients');
  return message.msisdn || 'Single recipient';
}

function TimestampCell({ message }: { message: TMessage }) {
  const created = formatDateTime(message.createdAt);
  const sent = formatDateTime(message.sent_at);
  return (
    <div className="space-y-0.5">
      <p className="whitespace-nowrap text-slate-900">{created}</p>
      {sent && sent !== created ? <p className="text-xs text-slate-500">Sent: {sent}</p> : null}
      {message.status === 'scheduled' ? (
        <p className="text-xs text-violet-700">
          Scheduled: {formatDateTimeWithZone(message.scheduledAt) ?? 'N/A'}
        </p>
      ) : null}
    </div>
  );
}

type TMessagesTableProps = {
  messages: TMessage[];
  showCompany: boolean;
  onViewDetails: (message: TMessage) => void;
};

export function MessagesTable({ messages, showCompany, onViewDetails }: TMessagesTableProps) {
  return (
    <table className="stacked-table min-w-full divide-y divide-slate-200 text-sm" aria-label="Messages">
      <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
        <tr>
          <th className="py-3 pr-2.5 pl-4">Timestamp</th>
          <th className="px-2.5 py-3">Direction</th>
          <th className="px-2.5 py-3">Recipients</th>
          <th className="px-2.5 py-3">Message</th>
          <th className="px-2.5 py-3">Status</th>
          <th className="px-2.5 py-3">Queue Status</th>
          <th className="px-2.5 py-3 text-right">Actions</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {messages.map((message) => {
          const direction = message.direction ?? 'outbound';
          const extraServices =
            message.serviceIds.length > 1 ? ` +${message.serviceIds.length - 1} more` : '';
          return (
            <tr key={message.id} className="align-top hover:bg-slate-50">
              <td data-label="Timestamp" className="py-3 pr-2.5 pl-4">
                <TimestampCell message={message} />
              </td>
              <td data-label="Direction" className="px-2.5 py-3">
                <span
                  className={`inline-flex rounded-md px-2 py-0.5 text-xs font-medium ${direction === 'inbound' ? 'bg-amber-50 text-amber-800' : 'bg-sky-50 text-sky-700'}`}
                >
                  {MESSAGE_DIRECTION_LABELS[direction]}
                </span>
              </td>
              <td data-label="Recipients" className="px-2.5 py-3">
                <p className="whitespace-nowrap text-slate-900">{describeRecipients(message)}</p>
                {direction === 'outbound' && message.service ? (
                  <p className="text-xs text-slate-500">
                    Service: {message.service.name}
                    {extraServices}
                  </p>
                ) : null}
                {showCompany ? <p className="text-xs text-slate-400">{message.company.name}</p> : null}
              </td>
              <td data-label="Message" className="min-w-44 max-w-md px-2.5 py-3">
                {message.content ? (
                  <p className="line-clamp-2 break-words text-slate-700" title={message.content}>
                    {truncate(message.content, CONTENT_PREVIEW_LENGTH)}
                  </p>
                ) : (
                  <p className="text-slate-400 italic">No content</p>
                )}
              </td>
              <td data-label="Status" className="px-2.5 py-3">
                <MessageStatusBadge status={message.status} />
                {message.cancelled ? (
                  <p className="mt-1 text-xs text-slate-500" data-testid="cancelled-by">
                    {describeCancellation(message.cancelled)}
                  </p>
                ) : null}
                {message.handover ? <HandoverProgress handover={message.handover} compact /> : null}
              </td>
              <td data-label="Queue Status" className="px-2.5 py-3 text-slate-600">
                <span title={message.queue_job_id ?? undefined}>
                  {message.queue_job_id ? `Queued #${shortJobId(message.queue_job_id)}` : 'Direct send'}
                </span>
              </td>
              <td data-label="" className="px-2.5 py-3 text-right whitespace-nowrap">
                {direction === 'outbound' ? (
                  <Button variant="ghost" size="sm" onClick={() => onViewDetails(message)}>
                    View Details
                  </Button>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
