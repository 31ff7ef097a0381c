import { DELIVERY_REPORT_PAGE_SIZE } from '@sms/contracts/messages/delivery-reports';
import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { recipientCountOf } from '@sms/contracts/messages/message-details';
import { type ReactNode, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { useCancelMessage } from '../api/cancel-message.ts';
import { isStillDelivering, useMessageDetails, useSyncMessageIntoLists } from '../api/message-details.ts';
import { formatDateTime } from '../lib/format.ts';
import { describeMessagesError } from '../lib/message-errors.ts';
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

/** Spec section 2's Message Details modal; closing it drops the message, its details and errors. */
export function MessageDetailsModal({ messageId, canCancel, onClose }: TMessageDetailsModalProps) {
  const [page, setPage] = useState(1);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const { showToast } = useToast();
  const details = useMessageDetails(messageId, { page, limit: DELIVERY_REPORT_PAGE_SIZE });
  const cancel = useCancelMessage();
  const data = details.data;
  useSyncMessageIntoLists(data?.message);

  const confirmCancel = async () => {
    try {
      await cancel.mutateAsync(messageId);
      showToast('Scheduled message cancelled', 'success');
      onClose();
    } catch (error) {
      showToast(describeMessagesError(error), 'error');
      setConfirmingCancel(false);
    }
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

        <Section title="Overview">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            <Fact label="Status">
              <MessageStatusBadge status={message.status} />
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
            {jobStatus.failedReason ? <p className="text-xs text-red-700">{jobStatus.failedReason}</p> : null}
          </Section>
        ) : null}

        <Section title="Subscriber Delivery Status">
          {data.deliveryReports.length === 0 ? (
            <p className="rounded-lg border border-dashed border-slate-300 py-6 text-center text-sm text-slate-500">
              No delivery reports yet.
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
                          <DeliveryStatusBadge status={report.status} />
                        </td>
                        <td className="max-w-40 truncate px-3 py-2 font-mono text-xs text-slate-600">
                          {report.gateway_message_id || NA}
                        </td>
                        <td className="px-3 py-2 whitespace-nowrap text-slate-600">
                          {formatDateTime(report.delivered_at) ?? NA}
                        </td>
                        <td className="px-3 py-2 text-slate-600">{report.error_message || NA}</td>
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
            <Fact label="Pending">{summary.pending.toLocaleString()}</Fact>
          </dl>
        </Section>
      </div>
    );
  }

  const cancellable = canCancel && data?.message.status === 'scheduled';
  const footer = confirmingCancel ? (
    <>
      <p className="mr-auto self-center text-sm text-slate-700">
        Cancel this scheduled message? It will not be sent.
      </p>
      <Button variant="secondary" onClick={() => setConfirmingCancel(false)} disabled={cancel.isPending}>
        Keep It
      </Button>
      <Button variant="danger" onClick={confirmCancel} disabled={cancel.isPending}>
        {cancel.isPending ? 'Cancelling...' : 'Cancel Message'}
      </Button>
    </>
  ) : (
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
    </ModalDialog>
  );
}
