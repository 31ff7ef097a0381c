import type { TRole } from '@sms/contracts/auth/roles';
import type { TGlobalSearchData } from '@sms/contracts/search/global-search';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { GlobalSearch } from './global-search.tsx';

const results: TGlobalSearchData = {
  q: 'acm',
  kinds: ['services', 'subscribers', 'messages'],
  services: [
    { id: 4, name: 'Acme News', shortcode: '22555', keyword: 'NEWS', status: 'active', companyName: 'Acme' },
  ],
  subscribers: [{ id: 9, msisdn: '+254711000999', status: 'active', companyName: 'Acme' }],
  messages: [
    {
      id: 31,
      snippet: 'Acme weekly deals',
      direction: 'outbound',
      status: 'sent',
      createdAt: '2026-03-01T10:00:00.000Z',
      companyName: 'Acme',
    },
  ],
  companies: [],
  users: [],
};

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let fetchMock: Mock<(url: string, init: RequestInit) => Promise<Response>>;
beforeEach(() => {
  fetchMock = vi.fn(async (url: string) => {
    const q = new URL(url, 'http://x').searchParams.get('q') ?? '';
    return json(200, { success: true, data: { ...results, q } });
  });
  vi.stubGlobal('fetch', fetchMock);
});

function renderAs(role: TRole) {
  const router = createMemoryRouter([{ path: '*', element: <GlobalSearch role={role} /> }], {
    initialEntries: ['/dashboard'],
  });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { router, input: screen.getByRole('combobox', { name: 'Search' }) };
}

describe('GlobalSearch', () => {
  it('searches once the typing settles and groups the results by kind', async () => {
    const { input } = renderAs('company_admin');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'a' } });
    expect(screen.getByText('Type at least 2 characters')).toBeInTheDocument();
    fireEvent.change(input, { target: { value: 'ac' } });
    fireEvent.change(input, { target: { value: 'acm' } });

    const services = await screen.findByRole('group', { name: 'Services' });
    expect(within(services).getByRole('option')).toHaveTextContent('Acme News22555 · NEWS');
    expect(within(screen.getByRole('group', { name: 'Subscribers' })).getByRole('option')).toHaveTextContent(
      '+254711000999',
    );
    expect(within(screen.getByRole('group', { name: 'Messages' })).getByRole('option')).toHaveTextContent(
      'Acme weekly deals',
    );
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0][0]).toBe('/api/v1/search?q=acm');
  });

  it('moves with the arrows and opens the chosen result with Enter', async () => {
    const { router, input } = renderAs('company_admin');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'acm' } });
    await screen.findAllByRole('option');

    fireEvent.keyDown(input, { key: 'ArrowDown' });
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(screen.getAllByRole('option')[1]).toHaveAttribute('aria-selected', 'true');
    expect(input).toHaveAttribute('aria-activedescendant', screen.getAllByRole('option')[1].id);
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(router.state.location.pathname + router.state.location.search).toBe(
      '/subscribers?search=%2B254711000999',
    );
    expect(input).toHaveValue('');
  });

  it('wraps upwards to the last result, opens a message and a service by click', async () => {
    const { router, input } = renderAs('company_admin');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'acm' } });
    await screen.findAllByRole('option');
    fireEvent.keyDown(input, { key: 'ArrowUp' });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(router.state.location.search).toBe('?open=31');

    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'acme' } });
    fireEvent.click(await screen.findByRole('option', { name: /Acme News/ }));
    expect(router.state.location.pathname + router.state.location.search).toBe('/services?edit=4');
  });

  it('opens the first result when Enter came before the results', async () => {
    const { router, input } = renderAs('company_admin');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'acm' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() =>
      expect(router.state.location.pathname + router.state.location.search).toBe('/services?edit=4'),
    );
  });

  it('closes on Escape and clears on a second Escape', async () => {
    const { input } = renderAs('company_admin');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'acm' } });
    await screen.findAllByRole('option');
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
    expect(input).toHaveValue('acm');
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(input).toHaveValue('');
  });

  it("focuses on '/' outside a text field and on Ctrl-K", () => {
    const { input } = renderAs('company_admin');
    fireEvent.keyDown(document.body, { key: '/' });
    expect(input).toHaveFocus();
    input.blur();
    fireEvent.keyDown(document.body, { key: 'k', ctrlKey: true });
    expect(input).toHaveFocus();
  });

  it('says so when nothing matches', async () => {
    fetchMock.mockImplementation(async () =>
      json(200, {
        success: true,
        data: { ...results, q: 'zzz', services: [], subscribers: [], messages: [] },
      }),
    );
    const { input } = renderAs('company_admin');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'zzz' } });
    expect(await screen.findByText('No results for "zzz"')).toBeInTheDocument();
  });

  it('says what it finds as soon as it has the focus, before anything is typed', () => {
    const { input } = renderAs('company_admin');
    expect(input).toHaveAccessibleDescription('Finds services, subscribers by number and messages');
    fireEvent.focus(input);
    expect(screen.getByRole('status')).toHaveTextContent(
      'Finds services, subscribers by number and messages',
    );
  });

  it('finds companies and users for a system admin and opens them in the Admin Panel', async () => {
    fetchMock.mockImplementation(async () =>
      json(200, {
        success: true,
        data: {
          ...results,
          q: 'acm',
          kinds: ['services', 'subscribers', 'messages', 'companies', 'users'],
          companies: [{ id: 7, name: 'Acme Mobile', status: 'active' }],
          users: [
            { id: 12, name: 'Ada Acme', email: 'ada@acme.example.com', role: 'viewer', companyName: 'Acme' },
          ],
        },
      }),
    );
    const { router, input } = renderAs('system_admin');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'acm' } });
    const companies = await screen.findByRole('group', { name: 'Companies' });
    expect(within(screen.getByRole('group', { name: 'Users' })).getByRole('option')).toHaveTextContent(
      'ada@acme.example.com · viewer · Acme',
    );
    fireEvent.click(within(companies).getByRole('option', { name: /Acme Mobile/ }));
    expect(router.state.location.pathname + router.state.location.search).toBe(
      '/admin?search=Acme%20Mobile&edit=7',
    );
  });

  it('does not search for a viewer, who may open none of the kinds, and says so before any typing', async () => {
    const { input } = renderAs('viewer');
    expect(input).toHaveAccessibleDescription(/which your role cannot open/);
    expect(screen.getByText('Not available for your role')).toBeInTheDocument();
    fireEvent.focus(input);
    expect(screen.getByRole('status')).toHaveTextContent(/which your role cannot open/);
    fireEvent.change(input, { target: { value: 'acme' } });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await waitFor(() => expect(fetchMock).not.toHaveBeenCalled());
  });
});
