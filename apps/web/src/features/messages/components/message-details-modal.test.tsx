import type { TMessageDetailsData } from '@sms/contracts/messages/message-details';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DETAILS_REFRESH_MS } from '../api/message-details.ts';
import { json, makeMessage, ok, renderSignedIn, routeFetch } from '../testing/fixtures.tsx';
import { MessageDetailsModal } from './message-details-modal.tsx';

function details(overrides: Partial<TMessageDetailsData> = {}): TMessageDetailsData {
  return {
    message: makeMessage({ id: 5, queue_job_id: '77', status: 'sent', content: 'Big match tonight' }),
    jobStatus: {
      id: '77',
      status: 'completed',
      attempts: 1,
      progress: 100,
      processedOn: '2026-04-01T10:00:01.000Z',
      finishedOn: '2026-04-01T10:00:03.000Z',
      failedReason: null,
    },
    summary: { total: 2, pending: 0, sent: 0, delivered: 1, failed: 1 },
    deliveryReports: [
      {
        id: 1,
        recipient_phone: '+254700000001',
        status: 'delivered',
        gateway_message_id: 'sim-1',
        delivered_at: '2026-04-01T10:00:05.000Z',
        error_message: null,
        attempts: 1,
        updatedAt: '2026-04-01T10:00:05.000Z',
      },
      {
        id: 2,
        recipient_phone: '+254700000002',
        status: 'failed',
        gateway_message_id: null,
        delivered_at: null,
        error_message: 'UserInBlackList',
        attempts: 1,
        updatedAt: '2026-04-01T10:00:05.000Z',
      },
    ],
    currentPage: 1,
    totalPages: 1,
    totalItems: 2,
    ...overrides,
  };
}

afterEach(() => vi.useRealTimers());

describe('MessageDetailsModal', () => {
  it('shows the overview, content, queue job, recipients with N/A blanks and the summary', async () => {
    routeFetch({ 'GET /api/v1/messages/5/details': () => ok(details()) });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    expect(screen.getByText('Loading message details...')).toBeInTheDocument();
    const dialog = await screen.findByRole('dialog', { name: 'Message Details' });
    expect(await within(dialog).findByText('Big match tonight')).toBeInTheDocument();
    expect(within(dialog).getByText('#77')).toBeInTheDocument();
    expect(within(dialog).getByText('completed')).toBeInTheDocument();
    expect(within(dialog).getByText('100%')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
    const [, delivered, failed] = within(within(dialog).getByRole('table')).getAllByRole('row');
    expect(delivered).toHaveTextContent('sim-1');
    expect(delivered).toHaveTextContent(/N\/A$/);
    expect(failed).toHaveTextContent(
      '+254700000002failedN/AN/AThe subscriber has blocked messages from this senderUserInBlackList',
    );
    // Sent, with one recipient lost: the overview says so.
    expect(within(dialog).getByTestId('overview-status')).toHaveTextContent('Sent, 1 failed');
    const summary = within(dialog).getByRole('heading', { name: 'Delivery Summary' }).parentElement!;
    expect(summary).toHaveTextContent('Sent0Delivered1Failed1Pending0');
  });

  it('says Direct send without a queue job and counts recipient_count, else 1', async () => {
    routeFetch({
      'GET /api/v1/messages/5/details': () =>
        ok(
          details({
            message: makeMessage({ id: 5, queue_job_id: null, recipient_count: null }),
            jobStatus: null,
            summary: { total: 0, pending: 0, sent: 0, delivered: 0, failed: 0 },
            deliveryReports: [],
            totalItems: 0,
          }),
        ),
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    expect(await screen.findByText('Direct send')).toBeInTheDocument();
    expect(screen.getByText('Recipients').nextSibling).toHaveTextContent('1');
    expect(screen.queryByRole('heading', { name: 'Queue Job Details' })).not.toBeInTheDocument();
  });

  it('shows a load failure in the modal with a retry', async () => {
    let failures = 1;
    routeFetch({
      'GET /api/v1/messages/5/details': () =>
        failures-- > 0
          ? json(404, { success: false, message: 'Message not found', error: 'not_found' })
          : ok(details()),
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    expect(await screen.findByText('Failed to load message details: Message not found')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Big match tonight')).toBeInTheDocument();
  });

  it('refreshes itself while recipients still wait for their reports, and stops once all are in', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const inFlight = details({ summary: { total: 2, pending: 0, sent: 1, delivered: 1, failed: 0 } });
    let answers = [inFlight, inFlight, details()];
    const fetchMock = routeFetch({
      'GET /api/v1/messages/5/details': () => {
        const [next, ...rest] = answers;
        answers = rest.length > 0 ? rest : [next];
        return ok(next);
      },
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    await screen.findByText('Updating live');
    await act(() => vi.advanceTimersByTimeAsync(DETAILS_REFRESH_MS + 10));
    await act(() => vi.advanceTimersByTimeAsync(DETAILS_REFRESH_MS + 10));
    await waitFor(() => expect(screen.queryByText('Updating live')).not.toBeInTheDocument());
    const calls = fetchMock.mock.calls.length;
    expect(calls).toBe(3);
    await act(() => vi.advanceTimersByTimeAsync(DETAILS_REFRESH_MS * 3));
    expect(fetchMock.mock.calls.length).toBe(calls);
  });

  it('cancels a scheduled message in a confirmation alert dialog, and then reads Cancelled', async () => {
    const onClose = vi.fn();
    const scheduled = makeMessage({ id: 5, status: 'scheduled', scheduledAt: '2026-06-01T09:00:00.000Z' });
    let current = details({ message: scheduled, jobStatus: null });
    const fetchMock = routeFetch({
      'GET /api/v1/messages/5/details': () => ok(current),
      'DELETE /api/v1/messages/5': () => {
        current = details({
          message: {
            ...scheduled,
            status: 'cancelled',
            cancelled: { at: '2026-05-01T10:00:00.000Z', by: 'Ann Admin' },
          },
          jobStatus: null,
        });
        return ok({ id: 5, deleted: false, cancelled: true });
      },
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={onClose} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel Scheduled Message' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Cancel scheduled message' });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel Message' }));
    expect(await screen.findByText('Scheduled message cancelled')).toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(true);
    expect(await screen.findByTestId('cancelled-notice')).toHaveTextContent(/^Cancelled by Ann Admin, /);
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel Scheduled Message' })).not.toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('keeps the message when the confirmation is turned down', async () => {
    const fetchMock = routeFetch({
      'GET /api/v1/messages/5/details': () =>
        ok(details({ message: makeMessage({ id: 5, status: 'scheduled' }), jobStatus: null })),
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel Scheduled Message' }));
    fireEvent.click(screen.getByRole('button', { name: 'Keep It' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);
  });

  it('asks the server for one delivery status when the recipients are filtered', async () => {
    const fetchMock = routeFetch({ 'GET /api/v1/messages/5/details': () => ok(details()) });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    fireEvent.change(await screen.findByRole('combobox', { name: 'Show' }), { target: { value: 'failed' } });
    await waitFor(() =>
      expect(String(fetchMock.mock.calls.at(-1)?.[0])).toMatch(/\/messages\/5\/details\?.*status=failed/),
    );
    expect(String(fetchMock.mock.calls.at(-1)?.[0])).toContain('page=1');
  });

  it('puts a failed send’s reason at the top', async () => {
    routeFetch({
      'GET /api/v1/messages/5/details': () =>
        ok(
          details({
            message: makeMessage({ id: 5, status: 'failed' }),
            jobStatus: {
              id: '77',
              status: 'failed',
              attempts: 1,
              progress: 0,
              processedOn: null,
              finishedOn: null,
              failedReason: 'Monthly message limit reached (used 10000 of 10000)',
            },
          }),
        ),
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    const reason = await screen.findByTestId('failed-reason');
    expect(reason).toHaveTextContent('Monthly message limit reached (used 10000 of 10000)');
    expect(reason).toHaveAttribute('role', 'alert');
    const overview = screen.getByRole('heading', { name: 'Overview' });
    // The reason comes before the overview in the document.
    expect(reason.compareDocumentPosition(overview) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('calls the recipients of a send that failed at its start "not sent", not pending', async () => {
    const neverHandedOver = {
      id: 3,
      recipient_phone: '+254700000003',
      status: 'pending' as const,
      gateway_message_id: null,
      delivered_at: null,
      error_message: null,
      attempts: 0,
      updatedAt: '2026-04-01T10:00:05.000Z',
    };
    routeFetch({
      'GET /api/v1/messages/5/details': () =>
        ok(
          details({
            message: makeMessage({ id: 5, status: 'failed' }),
            summary: { total: 1, pending: 1, sent: 0, delivered: 0, failed: 0 },
            deliveryReports: [neverHandedOver],
            totalItems: 1,
          }),
        ),
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    const dialog = await screen.findByRole('dialog', { name: 'Message Details' });
    const [, row] = within(await within(dialog).findByRole('table')).getAllByRole('row');
    expect(row).toHaveTextContent('+254700000003not sent');
    const summary = within(dialog).getByRole('heading', { name: 'Delivery Summary' }).parentElement!;
    expect(summary).toHaveTextContent('Sent0Delivered0Failed0Not sent1');
  });

  it('shows a send’s hand-over progress', async () => {
    routeFetch({
      'GET /api/v1/messages/5/details': () =>
        ok(
          details({
            message: makeMessage({
              id: 5,
              status: 'processing',
              handover: { handedOver: 400, recipients: 1500 },
            }),
          }),
        ),
    });
    renderSignedIn('company_admin', <MessageDetailsModal messageId={5} canCancel onClose={() => {}} />);
    expect(await screen.findByRole('progressbar', { name: 'Hand-over progress' })).toHaveAttribute(
      'aria-valuetext',
      'Handed over 400 of 1,500',
    );
  });
});
