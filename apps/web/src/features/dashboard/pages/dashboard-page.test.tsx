import type { TRole } from '@sms/contracts/auth/roles';
import type { TDashboardStats } from '@sms/contracts/dashboard/dashboard-stats';
import { WEBHOOK_MESSAGES } from '@sms/contracts/webhooks/webhook';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { ToastProvider } from '../../../components/toast/toast-provider.tsx';
import { signedIn, WithAuth } from '../../../test/auth-fixtures.tsx';
import DashboardPage from './dashboard-page.tsx';

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

function stats(overrides: Partial<TDashboardStats> = {}): TDashboardStats {
  return {
    totalServices: 12,
    activeServices: 9,
    totalSubscribers: 4321,
    totalMessages: 98765,
    trends: {
      totalServices: { change: 20, changeType: 'positive' },
      activeServices: { change: -10, changeType: 'negative' },
      totalSubscribers: { change: 3.5, changeType: 'positive' },
      totalMessages: { change: null, changeType: 'positive' },
    },
    usageStats: {
      messagesUsed: 8100,
      messagesLimit: 10000,
      subscribersUsed: 4321,
      subscribersLimit: 5000,
      servicesUsed: 12,
      servicesLimit: 20,
    },
    readOnly: false,
    platformStats: null,
    recentActivity: [
      { id: 'audit-1', type: 'service', message: 'Service News created', time: inDays(-0.01) },
      { id: 'message-2', type: 'message', message: 'Message sent to 40 recipients', time: inDays(-1) },
    ],
    billingStatus: 'active',
    packageName: 'Premium',
    packageExpiresAt: inDays(5),
    ...overrides,
  };
}

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let fetchMock: Mock<(url: string, init: RequestInit) => Promise<Response>>;
beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
});

/** A company admin's dashboard also reads the webhook endpoints (for the disabled-endpoint notice). */
function renderAs(role: TRole, answer: Promise<Response> | Response, endpoints: unknown[] = []) {
  fetchMock.mockImplementation(async (url) =>
    String(url).includes('/webhooks') ? json(200, { success: true, data: { endpoints } }) : answer,
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <ToastProvider>
        <WithAuth value={signedIn(role)}>
          <MemoryRouter>
            <DashboardPage />
          </MemoryRouter>
        </WithAuth>
      </ToastProvider>
    </QueryClientProvider>,
  );
}

const card = (name: string) => screen.getByRole('article', { name });

describe('DashboardPage', () => {
  it('shows a company admin the four cards with computed trends, gauges, billing and activity', async () => {
    renderAs('company_admin', json(200, { success: true, data: stats() }));

    expect(await within(card('Total Services')).findByText('12')).toBeInTheDocument();
    expect(within(card('Total Services')).getByTestId('trend')).toHaveTextContent('▲Up+20%vs last month');
    expect(within(card('Active Services')).getByTestId('trend')).toHaveTextContent('▼Down-10%');
    expect(within(card('Total Subscribers')).getByText('4,321')).toBeInTheDocument();
    expect(within(card('Messages Sent')).getByTestId('trend')).toHaveTextContent('New');
    expect(screen.queryByText('View Only - No Edit Access')).not.toBeInTheDocument();

    const usage = screen.getByRole('region', { name: 'Usage & Limits' });
    expect(within(usage).getByTestId('gauge-messages')).toHaveTextContent('Near Limit8,100 / 10,000');
    expect(within(usage).getByTestId('gauge-subscribers')).toHaveTextContent('Near Limit4,321 / 5,000');
    expect(within(usage).getByTestId('gauge-services')).not.toHaveTextContent('Near Limit');
    expect(within(usage).queryByText('Read-Only View')).not.toBeInTheDocument();

    const billing = screen.getByRole('region', { name: 'Billing Status' });
    expect(within(billing).getByText('Active')).toBeInTheDocument();
    expect(within(billing).getByText('Premium')).toBeInTheDocument();
    expect(within(billing).getByTestId('package-expiry')).toHaveAttribute('data-tone', 'danger');
    expect(within(billing).getByTestId('package-expiry')).toHaveClass('text-red-600');

    expect(screen.getByText('Service News created')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Manage Webhooks' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Platform Overview' })).not.toBeInTheDocument();
  });

  it('shows no triangle for a 0% trend, and "New" only as new, without a triangle', async () => {
    const data = stats({
      trends: { ...stats().trends, totalServices: { change: 0, changeType: 'positive' } },
    });
    renderAs('company_admin', json(200, { success: true, data }));
    const unchanged = await within(card('Total Services')).findByTestId('trend');
    expect(unchanged).toHaveTextContent('No change:0%vs last month');
    expect(unchanged).not.toHaveTextContent(/[▲▼]/);
    const fresh = within(card('Messages Sent')).getByTestId('trend');
    expect(fresh).toHaveTextContent('New');
    expect(fresh).toHaveTextContent('nothing the period before');
    expect(fresh).not.toHaveTextContent(/[▲▼]/);
  });

  it('shows dashes, not zeros, in the usage gauges when the figures could not be read', async () => {
    renderAs('company_admin', json(500, { success: false, message: 'boom' }));
    const usage = screen.getByRole('region', { name: 'Usage & Limits' });
    expect(await screen.findAllByText('— / —')).toHaveLength(3);
    expect(within(usage).queryByText(/\d/)).not.toBeInTheDocument();
  });

  it('gives content managers three view-only cards and no subscriber gauge', async () => {
    const data = stats({
      totalSubscribers: null,
      trends: { ...stats().trends, totalSubscribers: null },
      usageStats: { ...stats().usageStats!, subscribersUsed: null, subscribersLimit: null },
      packageExpiresAt: inDays(20),
    });
    renderAs('content_manager', json(200, { success: true, data }));

    expect(await within(card('Total Services')).findByText('12')).toBeInTheDocument();
    expect(screen.queryByRole('article', { name: 'Total Subscribers' })).not.toBeInTheDocument();
    expect(screen.getAllByText('View Only - No Edit Access')).toHaveLength(3);
    expect(screen.queryByTestId('gauge-subscribers')).not.toBeInTheDocument();
    expect(screen.getByTestId('package-expiry')).toHaveClass('text-orange-600');
    // They cannot send: the shortcut to the logs does not offer to.
    const actions = screen.getByRole('region', { name: 'Quick Actions' });
    expect(within(actions).getByRole('link', { name: 'View Messages' })).toHaveAttribute('href', '/messages');
    expect(within(actions).queryByText('Send Messages')).not.toBeInTheDocument();
  });

  it('shows viewers the read-only badge and tag', async () => {
    renderAs(
      'viewer',
      json(200, { success: true, data: stats({ readOnly: true, billingStatus: 'past_due' }) }),
    );

    expect(screen.getByTestId('read-only-badge')).toHaveTextContent('Acme Corp|Read-Only Access');
    const billing = screen.getByRole('region', { name: 'Billing Status' });
    expect(await within(billing).findByText('Inactive')).toBeInTheDocument();
    expect(screen.getByText('Read-Only View')).toBeInTheDocument();
  });

  it('shows a system admin the platform overview with revenue in thousands, and no usage or billing', async () => {
    const data = stats({
      usageStats: null,
      billingStatus: null,
      packageName: null,
      packageExpiresAt: null,
      platformStats: { totalCompanies: 5, activeCompanies: 3, pendingApprovals: 1, totalRevenue: 182_000 },
    });
    renderAs('system_admin', json(200, { success: true, data }));

    const platform = await screen.findByRole('region', { name: 'Platform Overview' });
    expect(within(platform).getByText('KES 182K')).toBeInTheDocument();
    expect(within(platform).getByText('Pending Approvals').nextSibling).toHaveTextContent('1');
    expect(screen.queryByRole('region', { name: 'Usage & Limits' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Billing Status' })).not.toBeInTheDocument();
  });

  it('hides the platform overview while there are no companies', async () => {
    const data = stats({
      usageStats: null,
      platformStats: { totalCompanies: 0, activeCompanies: 0, pendingApprovals: 0, totalRevenue: 0 },
    });
    renderAs('system_admin', json(200, { success: true, data }));

    expect(await within(card('Total Services')).findByText('12')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Platform Overview' })).not.toBeInTheDocument();
  });

  it('shows 4 skeleton rows while loading, then "No recent activity" when there is none', async () => {
    let answer!: (response: Response) => void;
    renderAs(
      'company_admin',
      new Promise<Response>((resolve) => {
        answer = resolve;
      }),
    );

    expect(screen.getAllByTestId('activity-skeleton')).toHaveLength(4);
    // Dashes while loading, never figures that look real ("0 / 10,000").
    const loadingUsage = within(screen.getByRole('region', { name: 'Usage & Limits' }));
    expect(loadingUsage.getAllByText('— / —')).toHaveLength(3);
    expect(loadingUsage.queryByText(/10,000/)).not.toBeInTheDocument();
    const loadingBilling = within(screen.getByRole('region', { name: 'Billing Status' }));
    expect(loadingBilling.getAllByText('—')).toHaveLength(3);
    expect(loadingBilling.queryByText('Active')).not.toBeInTheDocument();
    answer(json(200, { success: true, data: stats({ recentActivity: [] }) }));
    expect(await screen.findByText('No recent activity')).toBeInTheDocument();
    expect(screen.queryByTestId('activity-skeleton')).not.toBeInTheDocument();
  });

  it('toasts "Failed to load dashboard data" and replaces recent activity with one entry on failure', async () => {
    renderAs('company_admin', json(500, { success: false, message: 'boom', error: 'internal' }));

    expect(await screen.findByText('Failed to load dashboard data')).toBeInTheDocument();
    const activity = screen.getByRole('region', { name: 'Recent Activity' });
    expect(within(activity).getAllByRole('listitem')).toHaveLength(1);
    expect(within(activity).getByText('Unable to load recent activity')).toBeInTheDocument();
    expect(within(card('Total Services')).getByTestId('stat-value')).toHaveTextContent('—');
  });

  it('tells a company admin which webhook endpoints were disabled after a day of failures', async () => {
    const endpoint = (id: number, url: string, enabled: boolean, disabledReason: string | null) => ({
      id,
      url,
      description: '',
      eventTypes: ['message.sent'],
      secretPrefix: 'whsec_abcd',
      enabled,
      disabledReason,
      disabledAt: enabled ? null : inDays(0),
      failingSince: null,
      pendingEvents: 0,
      createdAt: inDays(-3),
    });
    renderAs('company_admin', json(200, { success: true, data: stats() }), [
      endpoint(1, 'https://crm.example.com/hooks', false, WEBHOOK_MESSAGES.disabledAfterFailures),
      endpoint(2, 'https://paused.example.com/hooks', false, 'Disabled by an admin'),
      endpoint(3, 'https://fine.example.com/hooks', true, null),
    ]);
    const notice = await screen.findByRole('alert', { name: 'Disabled webhook endpoints' });
    expect(notice).toHaveTextContent(WEBHOOK_MESSAGES.disabledNotice('https://crm.example.com/hooks'));
    expect(notice).not.toHaveTextContent('paused.example.com');
    expect(within(notice).getByRole('link', { name: 'Open Webhook Endpoints' })).toHaveAttribute(
      'href',
      '/settings/webhooks',
    );
  });
});
