import type { TRole } from '@sms/contracts/auth/roles';
import type { TReport, TReportTimeframe } from '@sms/contracts/reports/report';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { signedIn, WithAuth } from '../../../test/auth-fixtures.tsx';
import ReportsPage from './reports-page.tsx';

function report(timeframe: TReportTimeframe, sent: number): TReport {
  const points = timeframe === '24h' ? 24 : timeframe === '7d' ? 7 : 30;
  const bucket = timeframe === '24h' ? 'hour' : 'day';
  const step = bucket === 'hour' ? 3_600_000 : 86_400_000;
  return {
    timeframe,
    bucket,
    kpis: [
      {
        id: 'messages_sent',
        label: 'Messages Sent',
        value: sent,
        unit: 'count',
        change: 25,
        changeType: 'positive',
        higherIsBetter: true,
      },
      {
        id: 'delivery_rate',
        label: 'Delivery Rate',
        value: 96.4,
        unit: 'percent',
        change: -1.2,
        changeType: 'negative',
        higherIsBetter: true,
      },
    ],
    messageVolume: Array.from({ length: points }, (_, index) => ({
      time: new Date(Date.UTC(2026, 2, 1) + index * step).toISOString(),
      sent: index * 10,
      received: index,
    })),
  };
}

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let fetchMock: Mock<(url: string, init: RequestInit) => Promise<Response>>;
beforeEach(() => {
  fetchMock = vi.fn(async (url: string) => {
    const timeframe = new URL(url, 'http://x').searchParams.get('timeframe') as TReportTimeframe;
    return json(200, {
      success: true,
      data: report(timeframe, { '24h': 11, '7d': 77, '30d': 300 }[timeframe]),
    });
  });
  vi.stubGlobal('fetch', fetchMock);
});

function renderAs(role: TRole) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <WithAuth value={signedIn(role)}>
        <MemoryRouter>
          <ReportsPage />
        </MemoryRouter>
      </WithAuth>
    </QueryClientProvider>,
  );
}

const pointsDrawn = (series: string) =>
  document.querySelector(`[data-series="${series}"]`)?.getAttribute('d')?.match(/[ML]/g)?.length ?? 0;
const sentValue = () => within(screen.getByTestId('kpi-messages_sent')).getByTestId('kpi-value');

describe('ReportsPage', () => {
  it('loads 7 days first, then each timeframe the toggle picks', async () => {
    renderAs('company_admin');

    expect(screen.getByRole('heading', { name: 'Reports & Analytics' })).toBeInTheDocument();
    expect(screen.getByText('Visualize your messaging performance and trends.')).toBeInTheDocument();
    expect(screen.getByText('Loading...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '7 Days' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() => expect(sentValue()).toHaveTextContent('77'));
    expect(fetchMock.mock.calls[0][0]).toBe('/api/v1/reports?timeframe=7d');

    fireEvent.click(screen.getByRole('button', { name: '24 Hours' }));
    await waitFor(() => expect(sentValue()).toHaveTextContent('11'));
    expect(pointsDrawn('sent')).toBe(24);
    expect(pointsDrawn('received')).toBe(24);
    fireEvent.click(screen.getByRole('button', { name: '30 Days' }));
    await waitFor(() => expect(sentValue()).toHaveTextContent('300'));
    expect(pointsDrawn('received')).toBe(30);
  });

  it('draws an up triangle for a positive change and a down triangle otherwise, rates in points', async () => {
    renderAs('company_admin');

    const sent = await screen.findByTestId('kpi-messages_sent');
    expect(within(sent).getByTestId('trend')).toHaveTextContent('▲Up+25%vs previous 7 days');
    const rate = screen.getByTestId('kpi-delivery_rate');
    expect(within(rate).getByTestId('kpi-value')).toHaveTextContent('96.4%');
    expect(within(rate).getByTestId('trend')).toHaveTextContent('▼Down-1.2 pts');
  });

  it("tells viewers whose figures these are, with the company's badge", () => {
    renderAs('viewer');

    expect(screen.getByText('View messaging performance and trends for Acme Corp.')).toBeInTheDocument();
    expect(screen.getByTestId('company-badge')).toHaveTextContent('Acme Corp');
  });

  it('replaces the page with "Failed to fetch report data." when the call fails', async () => {
    fetchMock.mockImplementation(async () =>
      json(500, { success: false, message: 'down', error: 'internal' }),
    );
    renderAs('company_admin');

    expect(await screen.findByText('Failed to fetch report data.')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Reports & Analytics' })).not.toBeInTheDocument();
  });
});
