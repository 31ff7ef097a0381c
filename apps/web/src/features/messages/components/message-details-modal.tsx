import { describeDeliveryError } from '@sms/contracts/messages/delivery-errors';
import { DELIVERY_REPORT_PAGE_SIZE } from '@sms/contracts/messages/delivery-reports';
import {
  DELIVERY_STATUSES,
  MESSAGE_MESSAGES,
  type TDeliveryStatus,
  type TDeliverySummary,
  type TMessage,
} from '@sms/contracts/messages/message';
import { recipientCountOf } from '@sms/contracts/messages/message-details';
import { type ReactNode, useId, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { INPUT_CLASSES } from '../../../components/form-field.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { useCancelMessage } from '../api/cancel-message.ts';
import { isStillDelivering, useMessageDetails, useSyncMessageIntoLists } from '../api/message-details.ts';
import { formatDateTime } from '../lib/format.ts';
import { describeMessagesError } from '../lib/message-errors.ts';
import { describeCancellation, HandoverProgress } from './message-progress.tsx';
import { DeliveryStatusBadge, JobStateBadge, MessageStatusBadge } from './message-status-badge.tsx';

const NA = 'N/A';

type TMessageDetailsModalProps = {
  messageId: number;
  /** May cancel a scheduled message (the roles that may send). */
  canCancel: boolean;
  onClose: () => void;
};

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="rounded-lg bg-slate-50 px-3 py-2">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="mt-1 text-sm text-slate-900">{children}</dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
      {children}
    </section>
  );
}

const DELIVERY_STATUS_LABELS: Record<TDeliveryStatus, string> = {
  pending: 'Pending',
  submitted: 'Submitted',
  sent: 'Sent',
  delivered: 'Delivered',
  failed: 'Failed',
  rejected: 'Rejected',
  expired: 'Expired',
};

/** "Delivered, 16 failed": a send that went out names the recipients it lost. */
function failedSuffix(message: TMessage, summary: TDeliverySummary) {
  if (summary.failed === 0 || !['sent', 'delivered'].includes(message.status)) return null;
  return `, ${summary.failed.toLocaleString()} failed`;
}

function RecipientError({ error }: { error: string | null }) {
  if (!error) return <>{NA}</>;
  const words = describeDeliveryError(error);
  if (words === error) return <>{error}</>;
  return (
    <>
      {words}
      <span className="block font-mono text-xs text-slate-400">{error}</span>
    </>
  );
}

/** Spec section 2's Message Details modal; closing it drops the message, its details and errors. */
export function MessageDetailsModal({ messageId, canCancel, onClose }: TMessageDetailsModalProps) {
  const ids = useId();
  const [page, setPage] = useState(1);
  const [recipientStatus, setRecipientStatus] = useState<TDeliveryStatus | ''>('');
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const { showToast } = useToast();
  const details = useMessageDetails(messageId, {
    page,
    limit: DELIVERY_REPORT_PAGE_SIZE,
    status: recipientStatus || undefined,
  });
  const cancel = useCancelMessage();
  const data = details.data;
  useSyncMessageIntoLists(data?.message);

  const confirmCancel = async () => {
    try {
      await cancel.mutateAsync(messageId);
      showToast('Scheduled message cancelled', 'success');
    } catch (error) {
      showToast(describeMessagesError(error), 'error');
    }
    // The details stay open: they now read Cancelled, with who and when.
    setConfirmingCancel(false);
  };

  let body: ReactNode;
  if (details.isPending) {
    body = (
      <div className="flex items-center justify-center gap-3 py-12 text-sm text-slate-600">
        <Spinner className="size-6" label="Loading" />
        {MESSAGE_MESSAGES.loadingDetails}
      </div>
    );
  } else if (details.isError || !data) {
    body = (
      <div role="alert" className="flex flex-col items-center gap-3 py-12 text-center text-sm text-red-700">
        <p>{MESSAGE_MESSAGES.detailsLoadFailed(describeMessagesError(details.error))}</p>
        <Button variant="secondary" size="sm" onClick={() => details.refetch()}>
          Retry
        </Button>
      </div>
    );
  } else {
    const { message, jobStatus, summary } = data;
    const sentAt = formatDateTime(message.sent_at);
    // A send that failed at its start or was cancelled hands its pending recipients over never.
    const neverSent = message.status === 'failed' || message.status === 'cancelled';
    const pendingLabel = neverSent ? 'Not sent' : DELIVERY_STATUS_LABELS.pending;
    body = (
      <div className="space-y-6">
        <div className="flex flex-wrap items-center justify-between gap-3 text-xs text-slate-500">
          <div className="space-x-4">
            <span>Created: {formatDateTime(message.createdAt)}</span>
            <span>Sent: {sentAt ?? NA}</span>
            {message.status === 'scheduled' ? (
              <span>Scheduled: {formatDateTime(message.scheduledAt) ?? NA}</span>
            ) : null}
          </div>
          <div className="flex items-center gap-2">
            {isStillDelivering(data) ? <span className="text-indigo-600">Updating live</span> : null}
            <Button
              variant="secondary"
              size="sm"
              onClick={() => details.refetch()}
              disabled={details.isFetching}
            >
              {details.isFetching ? 'Refreshing...' : 'Refresh'}
            </Button>
          </div>
        </div>

        {message.status === 'failed' && jobStatus?.failedReason ? (
          <div
            role="alert"
            className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"
            data-testid="failed-reason"
          >
            <p className="font-medium">This send failed</p>
            <p>{jobStatus.failedReason}</p>
          </div>
        ) : null}
        {message.status === 'processing' && jobStatus?.status === 'delayed' && jobStatus.failedReason ? (
          <div
            role="status"
            className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
            data-testid="held-reason"
          >
            <p className="font-medium">Held: nothing more is sent until this clears</p>
            <p>{jobStatus.failedReason}</p>
          </div>
        ) : null}
        {message.cancelled ? (
          // A status: the page's toast is hidden from screen readers while this modal is open.
          <p
            role="status"
            className="rounded-lg border border-zinc-200 bg-zinc-50 px-4 py-3 text-sm text-zinc-700"
            data-testid="cancelled-notice"
          >
            {describeCancellation(message.cancelled)}. It was not sent.
          </p>
        ) : null}
        {message.handover ? (
          <div className="rounded-lg border border-indigo-100 bg-indigo-50/60 px-4 py-3">
            <HandoverProgress handover={message.handover} />
          </div>
        ) : null}

        <Section title="Overview">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            <Fact label="Status">
              <span data-testid="overview-status">
                <MessageStatusBadge status={message.status} />
                {failedSuffix(message, summary) ? (
                  <span className="text-red-700">{failedSuffix(message, summary)}</span>
                ) : null}
              </span>
            </Fact>
            <Fact label="Queue Job">
              <span className="break-all">
                {message.queue_job_id ? `#${message.queue_job_id}` : 'Direct send'}
              </span>
            </Fact>
            <Fact label="Queue Status">{jobStatus ? <JobStateBadge state={jobStatus.status} /> : NA}</Fact>
            <Fact label="Recipients">{recipientCountOf(message, summary).toLocaleString()}</Fact>
          </dl>
        </Section>

        <Section title="Message Content">
          <p className="rounded-lg border border-slate-200 bg-white p-3 text-sm whitespace-pre-wrap text-slate-800">
            {message.content || 'No content'}
          </p>
          {message.encoding && message.parts ? (
            <p className="text-xs text-slate-500">
              {message.encoding === 'UCS-2' ? 'Unicode' : 'GSM-7'} · {message.parts} SMS{' '}
              {message.parts === 1 ? 'part' : 'parts'} per recipient
            </p>
          ) : null}
        </Section>

        {jobStatus ? (
          <Section title="Queue Job Details">
            <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
              <Fact label="Attempts">{jobStatus.attempts}</Fact>
              <Fact label="Progress">
                <span>{Math.round(jobStatus.progress)}%</span>
                <span className="mt-1 block h-1.5 rounded-full bg-slate-200">
                  <span
                    className="block h-1.5 rounded-full bg-indigo-600"
                    style={{ width: `${Math.min(100, Math.max(0, jobStatus.progress))}%` }}
                  />
                </span>
              </Fact>
              <Fact label="Processed">{formatDateTime(jobStatus.processedOn) ?? NA}</Fact>
              <Fact label="Finished">{formatDateTime(jobStatus.finishedOn) ?? NA}</Fact>
            </dl>
          </Section>
        ) : null}

        <Section title="Subscriber Delivery Status">
          {summary.total > 0 ? (
            <div className="flex items-center gap-2 text-sm">
              <label htmlFor={`${ids}-recipient-status`} className="text-slate-600">
                Show
              </label>
              <select
                id={`${ids}-recipient-status`}
                value={recipientStatus}
                onChange={(event) => {
                  setRecipientStatus(event.target.value as TDeliveryStatus | '');
                  setPage(1);
                }}
                className={`${INPUT_CLASSES} w-auto py-1`}
              >
                <option value="">All recipients</option>
                {DELIVERY_STATUSES.map((status) => (
                  <option key={status} value={status}>
                    {status === 'pending' ? pendingLabel : DELIVERY_STATUS_LABELS[status]}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {data.deliveryReports.length === 0 ? (
            <p className="rounded-lg border border-dashed border-slate-300 py-6 text-center text-sm text-slate-500">
              {recipientStatus
                ? `No ${(recipientStatus === 'pending' ? pendingLabel : DELIVERY_STATUS_LABELS[recipientStatus]).toLowerCase()} recipients.`
                : 'No delivery reports yet.'}
            </p>
          ) : (
            <div className="overflow-hidden rounded-lg border border-slate-200">
              <div className="overflow-x-auto">
                <table
                  className="min-w-full divide-y divide-slate-200 text-sm"
                  aria-label="Subscriber delivery status"
                >
                  <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
                    <tr>
                      <th className="px-3 py-2">Phone Number</th>
                      <th className="px-3 py-2">Status</th>
                      <th className="px-3 py-2">Gateway Message ID</th>
                      <th className="px-3 py-2">Delivered At</th>
                      <th className="px-3 py-2">Error</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {data.deliveryReports.map((report) => (
                      <tr key={report.id}>
                        <td className="px-3 py-2 font-mono text-slate-900">{report.recipient_phone || NA}</td>
                        <td className="px-3 py-2">
                          <DeliveryStatusBadge status={report.status} neverSent={neverSent} />
                        </td>
                        <td className="max-w-40 truncate px-3 py-2 font-mono text-xs text-slate-600">
                          {report.gateway_message_id || NA}
                        </td>
                        <td className="px-3 py-2 whitespace-nowrap text-slate-600">
                          {formatDateTime(report.delivered_at) ?? NA}
                        </td>
                        <td className="px-3 py-2 text-slate-600">
                          <RecipientError error={report.error_message} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {data.totalPages > 1 ? (
                <PaginationBar
                  currentPage={data.currentPage}
                  totalPages={data.totalPages}
                  totalItems={data.totalItems}
                  onPageChange={setPage}
                  itemLabel="recipients"
                  itemLabelOne="recipient"
                />
              ) : null}
            </div>
          )}
        </Section>

        <Section title="Delivery Summary">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" aria-label="Delivery summary">
            <Fact label="Sent">{summary.sent.toLocaleString()}</Fact>
            <Fact label="Delivered">
              <span className="text-green-700">{summary.delivered.toLocaleString()}</span>
            </Fact>
            <Fact label="Failed">
              <span className="text-red-700">{summary.failed.toLocaleString()}</span>
            </Fact>
            <Fact label={pendingLabel}>{summary.pending.toLocaleString()}</Fact>
          </dl>
        </Section>
      </div>
    );
  }

  const cancellable = canCancel && data?.message.status === 'scheduled';
  const footer = (
    <>
      {cancellable ? (
        <Button variant="danger" onClick={() => setConfirmingCancel(true)}>
          Cancel Scheduled Message
        </Button>
      ) : null}
      <Button variant="secondary" onClick={onClose}>
        Close
      </Button>
    </>
  );
  return (
    <ModalDialog title="Message Details" onClose={onClose} widthClass="max-w-3xl" footer={footer}>
      {body}
      {confirmingCancel ? (
        <ConfirmDialog
          title="Cancel scheduled message"
          message="Cancel this scheduled message? It will not be sent, and it stays in the list as Cancelled."
          confirmLabel="Cancel Message"
          cancelLabel="Keep It"
          pendingLabel="Cancelling..."
          isPending={cancel.isPending}
          onConfirm={confirmCancel}
          onCancel={() => setConfirmingCancel(false)}
        />
      ) : null}
    </ModalDialog>
  );
}
