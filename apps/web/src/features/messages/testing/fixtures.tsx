import type { TRole } from '@sms/contracts/auth/roles';
import type { TListMessagesData } from '@sms/contracts/messages/list-messages';
import type { TMessage } from '@sms/contracts/messages/message';
import type { TService } from '@sms/contracts/services/service';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { type Mock, vi } from 'vitest';
import { ToastProvider } from '../../../components/toast/toast-provider.tsx';
import { signedIn, WithAuth } from '../../../test/auth-fixtures.tsx';

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
export const ok = (data: unknown) => json(200, { success: true, data });

export type TFetchMock = Mock<(url: string, init?: RequestInit) => Promise<Response>>;

/** fetch answered by path (without the query): each handler gets the URL and init. */
export function routeFetch(
  routes: Record<string, (url: URL, init?: RequestInit) => Promise<Response> | Response>,
) {
  const fetchMock: TFetchMock = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const handler = routes[key];
    if (!handler) throw new Error(`unexpected request ${key}`);
    return handler(url, init);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

export function renderSignedIn(role: TRole, ui: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <WithAuth value={signedIn(role)}>
        <ToastProvider>
          <MemoryRouter>{ui}</MemoryRouter>
        </ToastProvider>
      </WithAuth>
    </QueryClientProvider>,
  );
}

export function makeService(overrides: Partial<TService> = {}): TService {
  return {
    id: 11,
    name: 'Daily News',
    shortcode: '22550',
    shortCode: '22550',
    keyword: 'NEWS',
    description: '',
    billingType: 'on_demand',
    status: 'active',
    companyId: 7,
    company: { name: 'Acme Corp', status: 'active' },
    subscriber_count: 3,
    messageCount: 0,
    lastActivity: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function makeMessage(overrides: Partial<TMessage> = {}): TMessage {
  return {
    id: 1,
    content: 'Hello subscribers',
    message: 'Hello subscribers',
    msisdn: null,
    direction: 'outbound',
    status: 'sent',
    createdAt: '2026-04-01T10:00:00.000Z',
    sent_at: '2026-04-01T10:00:00.000Z',
    scheduledAt: null,
    recipient_count: 12,
    queue_job_id: null,
    service: { id: 11, name: 'Daily News' },
    serviceIds: [11],
    companyId: 7,
    company: { name: 'Acme Corp' },
    encoding: 'GSM-7',
    parts: 1,
    ...overrides,
  };
}

export function makeList(
  messages: TMessage[],
  overrides: Partial<TListMessagesData> = {},
): TListMessagesData {
  return {
    messages,
    currentPage: 1,
    totalPages: 1,
    totalItems: messages.length,
    totalIsExact: true,
    counts: {
      scheduled: { total: 2, exact: true },
      pending: { total: 3, exact: true },
      sent: { total: 40, exact: true },
      all: { total: 10_000, exact: false },
    },
    ...overrides,
  };
}
