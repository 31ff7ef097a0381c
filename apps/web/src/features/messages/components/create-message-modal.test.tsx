import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { json, makeMessage, makeService, ok, renderSignedIn, routeFetch } from '../testing/fixtures.tsx';
import { CreateMessageModal } from './create-message-modal.tsx';

const now = () => new Date(2026, 4, 1, 12, 0);
const services = [
  makeService({ id: 11, name: 'Daily News', subscriber_count: 1 }),
  makeService({ id: 12, name: 'Sports', subscriber_count: 250, billingType: 'package' }),
];

function openModal(
  options: {
    role?: 'company_admin' | 'system_admin';
    send?: (init?: RequestInit) => Response | Promise<Response>;
  } = {},
) {
  const onClose = vi.fn();
  const fetchMock = routeFetch({
    'GET /api/v1/services': () => ok({ services, totalItems: services.length }),
    'GET /api/v1/messages/subscribers': () => ok({ recipientCount: 251, exact: true, subscribers: [] }),
    'POST /api/v1/messages/bulk/send': (_url, init) =>
      options.send
        ? options.send(init)
        : ok({ message: makeMessage({ id: 99, status: 'queued' }), recipientCount: 251 }),
  });
  renderSignedIn(
    options.role ?? 'company_admin',
    <CreateMessageModal acrossCompanies={options.role === 'system_admin'} onClose={onClose} now={now} />,
  );
  return { onClose, fetchMock };
}

const dialog = () => screen.getByRole('dialog', { name: 'Create New Message' });
const submitButton = (name = 'Send Message Now') => within(dialog()).getByRole('button', { name });
const typeMessage = (text: string) =>
  fireEvent.change(screen.getByLabelText('Message'), { target: { value: text } });
const summary = () => screen.getByText('Please fix the following errors:').parentElement!;

describe('CreateMessageModal', () => {
  it('lists the services with active subscribers and plan, and counts the selection', async () => {
    openModal();
    expect(
      screen.getByText('Send messages to your company subscribers instantly or schedule for later'),
    ).toBeInTheDocument();
    const sports = await screen.findByRole('checkbox', { name: /Sports/ });
    expect(screen.getByText('1 active subscriber(s)')).toBeInTheDocument();
    expect(screen.getByText('250 active subscriber(s)')).toBeInTheDocument();
    expect(screen.getByText('Package')).toBeInTheDocument();
    expect(screen.queryByText(/Acme Corp/)).not.toBeInTheDocument();
    expect(screen.getByText('0 service(s) selected')).toBeInTheDocument();
    fireEvent.click(sports);
    fireEvent.click(screen.getByRole('checkbox', { name: /Daily News/ }));
    expect(screen.getByText('2 service(s) selected')).toBeInTheDocument();
  });

  it('names each service’s company for a system admin', async () => {
    openModal({ role: 'system_admin' });
    expect(screen.getByText('Send messages to subscribers across all companies')).toBeInTheDocument();
    expect(await screen.findByText(/Acme Corp · 250 active subscriber/)).toBeInTheDocument();
  });

  it('shows the empty state when there is no service', async () => {
    routeFetch({ 'GET /api/v1/services': () => ok({ services: [], totalItems: 0 }) });
    renderSignedIn(
      'company_admin',
      <CreateMessageModal acrossCompanies={false} onClose={() => {}} now={now} />,
    );
    expect(await screen.findByText('No services available')).toBeInTheDocument();
    expect(screen.getByText('Create a service first to send messages')).toBeInTheDocument();
  });

  it('lists the submit messages under the summary heading and holds submit until they are fixed', async () => {
    const { fetchMock } = openModal();
    await screen.findByRole('checkbox', { name: /Sports/ });
    fireEvent.click(within(dialog()).getByRole('radio', { name: 'Schedule' }));
    fireEvent.click(submitButton('Schedule Message'));
    const items = within(summary())
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(items).toEqual([
      'Please select at least one service',
      'Please enter a message',
      'Please select a date',
      'Please select a time',
    ]);
    expect(submitButton('Schedule Message')).toBeDisabled();
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes('bulk'))).toBe(false);

    fireEvent.click(screen.getByRole('checkbox', { name: /Sports/ }));
    typeMessage('Kick-off at eight');
    fireEvent.change(screen.getByLabelText('Date'), { target: { value: '2026-05-01' } });
    fireEvent.change(screen.getByLabelText('Time'), { target: { value: '11:00' } });
    expect(
      within(summary())
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([MESSAGE_MESSAGES.scheduleInPast]);
    fireEvent.change(screen.getByLabelText('Time'), { target: { value: '20:00' } });
    expect(screen.queryByText('Please fix the following errors:')).not.toBeInTheDocument();
    expect(submitButton('Schedule Message')).toBeEnabled();
  });

  it('words the rules as the spec does when a field changes, and send-now clears the date and time errors', async () => {
    openModal();
    await screen.findByRole('checkbox', { name: /Sports/ });
    typeMessage('Hi');
    typeMessage('');
    expect(within(summary()).getByText('Message content is required')).toBeInTheDocument();
    fireEvent.click(within(dialog()).getByRole('radio', { name: 'Schedule' }));
    fireEvent.change(screen.getByLabelText('Date'), { target: { value: '2026-05-03' } });
    fireEvent.change(screen.getByLabelText('Date'), { target: { value: '' } });
    expect(within(summary()).getByText('Date is required for scheduled messages')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Time'), { target: { value: '09:00' } });
    fireEvent.change(screen.getByLabelText('Time'), { target: { value: '' } });
    expect(within(summary()).getByText('Time is required for scheduled messages')).toBeInTheDocument();
    expect(screen.getByLabelText('Date')).toHaveAttribute('min', '2026-05-01');
    // The date and time are read in the reader's zone, and the form says which.
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(screen.getByTestId('schedule-time-zone')).toHaveTextContent(`In your time zone: ${zone}`);
    fireEvent.click(within(dialog()).getByRole('radio', { name: 'Send Now' }));
    expect(screen.queryByLabelText('Date')).not.toBeInTheDocument();
    expect(
      within(summary())
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Message content is required']);
    typeMessage('x'.repeat(161));
    expect(within(summary()).getByText('Message must be 160 characters or less')).toBeInTheDocument();
    // Nothing typed is dropped: the text area keeps all 161, and submit waits for a fix.
    expect(screen.getByLabelText('Message')).toHaveValue('x'.repeat(161));
    expect(screen.getByLabelText('Message')).not.toHaveAttribute('maxLength');
    expect(submitButton()).toBeDisabled();
  });

  it('sends integer service ids with an Idempotency-Key, toasts success and closes', async () => {
    const { fetchMock, onClose } = openModal();
    fireEvent.click(await screen.findByRole('checkbox', { name: /Sports/ }));
    fireEvent.click(screen.getByRole('checkbox', { name: /Daily News/ }));
    typeMessage('Match tonight');
    fireEvent.click(submitButton());
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(screen.getByText('Message sent successfully!')).toBeInTheDocument();
    const [, init] = fetchMock.mock.calls.find(([url]) => String(url).endsWith('/messages/bulk/send'))!;
    expect(JSON.parse(String(init?.body))).toEqual({
      serviceIds: [12, 11],
      message: 'Match tonight',
      scheduleType: 'now',
    });
    expect(new Headers(init?.headers).get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('retries a failed send with the same Idempotency-Key, and a changed message gets a new one', async () => {
    let calls = 0;
    const { fetchMock, onClose } = openModal({
      send: () => {
        calls += 1;
        if (calls < 3) return Promise.reject(new TypeError('Failed to fetch'));
        return ok({ message: makeMessage({ id: 5 }), recipientCount: 1 });
      },
    });
    fireEvent.click(await screen.findByRole('checkbox', { name: /Sports/ }));
    typeMessage('Once only');
    fireEvent.click(submitButton());
    expect(await within(dialog()).findByText(/Unable to reach the server/)).toBeInTheDocument();
    fireEvent.click(submitButton());
    await waitFor(() => expect(calls).toBe(2));
    typeMessage('Once only, edited');
    await waitFor(() => expect(submitButton()).toBeEnabled());
    fireEvent.click(submitButton());
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const keys = fetchMock.mock.calls
      .filter(([url]) => String(url).endsWith('/messages/bulk/send'))
      .map(([, init]) => new Headers(init?.headers).get('Idempotency-Key'));
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('shows a refused send’s reason as an error notice and keeps the modal open', async () => {
    const { onClose } = openModal({
      send: () =>
        json(400, {
          success: false,
          message: 'The selected services have no active subscribers',
          error: 'bad_request',
        }),
    });
    fireEvent.click(await screen.findByRole('checkbox', { name: /Sports/ }));
    typeMessage('Hello');
    fireEvent.click(submitButton());
    const alerts = await screen.findAllByText('The selected services have no active subscribers');
    expect(alerts.length).toBe(2); // in the modal and as a toast
    expect(onClose).not.toHaveBeenCalled();
  });
});
