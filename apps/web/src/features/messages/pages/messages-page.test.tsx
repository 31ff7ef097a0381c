import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { shortJobId } from '../components/messages-table.tsx';
import { json, makeList, makeMessage, ok, renderSignedIn, routeFetch } from '../testing/fixtures.tsx';
import MessagesPage from './messages-page.tsx';

const rows = [
  makeMessage({ id: 1, queue_job_id: '42', status: 'delivered', recipient_count: 12 }),
  makeMessage({
    id: 2,
    direction: 'inbound',
    status: 'received',
    msisdn: '+254700000001',
    recipient_count: null,
    service: null,
    serviceIds: [],
    content: '',
    message: '',
  }),
  makeMessage({
    id: 3,
    status: 'scheduled',
    recipient_count: null,
    msisdn: null,
    sent_at: null,
    scheduledAt: '2026-06-01T09:00:00.000Z',
    serviceIds: [11, 12],
  }),
];

function serveMessages(answer: (url: URL) => Response = () => ok(makeList(rows))) {
  const queries: URLSearchParams[] = [];
  const fetchMock = routeFetch({
    'GET /api/v1/messages': (url) => {
      queries.push(url.searchParams);
      return answer(url);
    },
    'GET /api/v1/admin/companies': () =>
      ok({
        companies: [{ id: 7, name: 'Acme Corp' }],
        pagination: { currentPage: 1, totalPages: 1, totalItems: 1 },
      }),
  });
  return { fetchMock, queries, last: () => queries.at(-1)! };
}

describe('MessagesPage', () => {
  it('titles the screen for a company admin with the Company Scoped badge and the chips’ counts', async () => {
    serveMessages();
    renderSignedIn('company_admin', <MessagesPage />);
    expect(screen.getByRole('heading', { name: 'Message Logs' })).toBeInTheDocument();
    expect(screen.getByText('Review all inbound and outbound messages for Acme Corp.')).toBeInTheDocument();
    expect(screen.getByTestId('company-scope-badge')).toHaveTextContent('Acme Corp|Company Scoped');
    expect(screen.getByText('Message History')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create Message' })).toBeEnabled();
    expect(screen.getByText('Loading messages...')).toBeInTheDocument();
    await screen.findByRole('table', { name: 'Messages' });
    expect(screen.getByRole('button', { name: /Scheduled Messages\s*2/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Pending\s*3/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /^Sent\s*40/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /All Messages\s*10,000\+/ })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
  });

  it('describes all companies to a system admin, without the badge', async () => {
    serveMessages();
    renderSignedIn('system_admin', <MessagesPage />);
    expect(
      screen.getByText('Review all inbound and outbound messages across all companies.'),
    ).toBeInTheDocument();
    expect(screen.queryByText('Company Scoped')).not.toBeInTheDocument();
    expect(await screen.findByRole('combobox', { name: 'Filter by company' })).toBeInTheDocument();
  });

  it('fills the columns as the spec describes', async () => {
    serveMessages();
    renderSignedIn('company_admin', <MessagesPage />);
    const table = await screen.findByRole('table', { name: 'Messages' });
    const [, first, inbound, scheduled] = within(table).getAllByRole('row');
    expect(first).toHaveTextContent('12 recipients');
    expect(first).toHaveTextContent('Service: Daily News');
    expect(first).toHaveTextContent('Queued #42');
    expect(first).toHaveTextContent('Delivered');
    expect(within(first).getByRole('button', { name: 'View Details' })).toBeInTheDocument();
    expect(inbound).toHaveTextContent('+254700000001');
    expect(inbound).toHaveTextContent('No content');
    expect(inbound).toHaveTextContent('Direct send');
    expect(within(inbound).queryByRole('button', { name: 'View Details' })).not.toBeInTheDocument();
    expect(scheduled).toHaveTextContent('Single recipient');
    expect(scheduled).toHaveTextContent('Service: Daily News +1 more');
    expect(scheduled).toHaveTextContent('Scheduled:');
    expect(scheduled).not.toHaveTextContent('Sent:');
    expect(shortJobId('51fefa4e-f4fd-57a5-956b-313e66fcef3a')).toBe('51fefa4e');
    expect(shortJobId('42')).toBe('42');
  });

  it('sends the filters to the server, shows them in Active Filters and clears them all', async () => {
    const { last } = serveMessages();
    renderSignedIn('company_admin', <MessagesPage />);
    await screen.findByRole('table', { name: 'Messages' });
    expect(screen.queryByRole('region', { name: 'Active Filters' })).not.toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: /Pending\s*3/ }));
    await waitFor(() => expect(last().get('chip')).toBe('pending'));
    const bar = screen.getByRole('region', { name: 'Active Filters' });
    expect(bar).toHaveTextContent('Quick filter: Pending');

    fireEvent.change(screen.getByRole('combobox', { name: 'Filter by status' }), {
      target: { value: 'failed' },
    });
    await waitFor(() => expect(last().get('status')).toBe('failed'));
    expect(last().get('chip')).toBe('all');
    fireEvent.change(screen.getByRole('combobox', { name: 'Filter by direction' }), {
      target: { value: 'inbound' },
    });
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search messages' }), {
      target: { value: 'Promo' },
    });
    expect(screen.getByRole('searchbox')).toHaveAttribute('placeholder', 'Search by number or content...');
    await waitFor(() => expect(last().get('search')).toBe('Promo'));
    expect(last().get('direction')).toBe('inbound');
    expect(bar).toHaveTextContent('Status: Failed');
    expect(bar).toHaveTextContent('Direction: Inbound');
    expect(bar).toHaveTextContent('Search: "Promo"');

    fireEvent.click(within(bar).getByRole('button', { name: 'Clear All Filters' }));
    await waitFor(() => expect(last().get('search')).toBeNull());
    expect(last().get('status')).toBeNull();
    expect(last().get('direction')).toBeNull();
    expect(last().get('chip')).toBe('all');
    expect(screen.queryByRole('region', { name: 'Active Filters' })).not.toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Filter by status' })).toHaveValue('');
    expect(screen.getByRole('searchbox', { name: 'Search messages' })).toHaveValue('');
  });

  it('says No messages found. for an empty list', async () => {
    serveMessages(() => ok(makeList([])));
    renderSignedIn('company_admin', <MessagesPage />);
    expect(await screen.findByText('No messages found.')).toBeInTheDocument();
  });

  it('shows the server’s reason with a retry when the list fails', async () => {
    let failures = 1;
    serveMessages(() =>
      failures-- > 0
        ? json(500, { success: false, message: 'Database unavailable', error: 'unavailable' })
        : ok(makeList(rows)),
    );
    renderSignedIn('company_admin', <MessagesPage />);
    expect(await screen.findByText('Database unavailable')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByRole('table', { name: 'Messages' })).toBeInTheDocument();
  });

  it('opens a row’s details and the row takes the status the details read', async () => {
    serveMessages();
    routeFetch({
      'GET /api/v1/messages': () => ok(makeList(rows)),
      'GET /api/v1/messages/1/details': () =>
        ok({
          message: { ...rows[0], status: 'failed' },
          jobStatus: null,
          summary: { total: 0, pending: 0, sent: 0, delivered: 0, failed: 0 },
          deliveryReports: [],
          currentPage: 1,
          totalPages: 1,
          totalItems: 0,
        }),
    });
    renderSignedIn('company_admin', <MessagesPage />);
    const table = await screen.findByRole('table', { name: 'Messages' });
    const first = within(table).getAllByRole('row')[1];
    expect(first).toHaveTextContent('Delivered');
    fireEvent.click(within(first).getByRole('button', { name: 'View Details' }));
    const dialog = await screen.findByRole('dialog', { name: 'Message Details' });
    expect(await within(dialog).findByText('Delivery Summary')).toBeInTheDocument();
    fireEvent.click(within(dialog).getAllByRole('button', { name: 'Close' })[0]);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(within(table).getAllByRole('row')[1]).toHaveTextContent('Failed');
  });

  it('lets a content manager read but not send, saying why', async () => {
    serveMessages();
    renderSignedIn('content_manager', <MessagesPage />);
    const create = screen.getByRole('button', { name: 'Create Message' });
    expect(create).toBeDisabled();
    expect(create).toHaveAccessibleDescription('Content managers can view messages but cannot send them');
    expect(await screen.findByRole('table', { name: 'Messages' })).toBeInTheDocument();
  });
});
