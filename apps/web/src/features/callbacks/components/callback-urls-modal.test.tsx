import { CALLBACK_MESSAGES } from '@sms/contracts/callbacks/callback-urls';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { ToastProvider } from '../../../components/toast/toast-provider.tsx';
import { AuthContext, initialAuthState, type TAuthContext } from '../../auth/components/auth-provider.tsx';
import { CallbackUrlsModal } from './callback-urls-modal.tsx';
import { ManageWebhooksButton } from './manage-webhooks-button.tsx';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const urls = (token: string) => ({
  companyId: 7,
  companyName: 'Acme Corp',
  subscriptionCallbackUrl: `http://sms.test/api/v1/callbacks/subscription/7/${token}`,
  dlrCallbackUrl: `http://sms.test/api/v1/callbacks/dlr/7/${token}`,
});

let fetchMock: Mock<(url: string, init: RequestInit) => Promise<Response>>;
beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
});

const signedInAdmin: TAuthContext = {
  ...initialAuthState,
  isAuthenticated: true,
  isLoading: false,
  isSessionChecked: true,
  user: {
    id: 3,
    name: 'Ann Admin',
    firstName: 'Ann',
    email: 'ann@acme.test',
    role: 'company_admin',
    status: 'active',
    companyId: 7,
    company: { name: 'Acme Corp' },
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  login: async () => true,
  logout: async () => {},
};

function renderWithClient(ui: ReactNode) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <ToastProvider>{ui}</ToastProvider>
    </QueryClientProvider>,
  );
}

function openModal() {
  renderWithClient(
    <AuthContext value={signedInAdmin}>
      <ManageWebhooksButton />
    </AuthContext>,
  );
  fireEvent.click(screen.getByRole('button', { name: 'Manage Webhooks' }));
}

const never = () => new Promise<Response>(() => {});

describe('Manage Webhooks / callback URL modal', () => {
  it('loads the company admin’s own URLs from my-company, with Copy buttons and instructions', async () => {
    fetchMock.mockResolvedValue(json(200, { success: true, data: urls('first-token') }));
    openModal();
    expect(screen.getByText('Loading callback URLs...')).toBeInTheDocument();
    const dialog = await screen.findByRole('dialog', { name: 'Callback URLs - Acme Corp' });
    expect(String(fetchMock.mock.calls[0]![0])).toBe('/api/v1/callbacks/my-company');
    expect(await within(dialog).findByRole('textbox', { name: 'Subscription Callback URL' })).toHaveValue(
      'http://sms.test/api/v1/callbacks/subscription/7/first-token',
    );
    expect(within(dialog).getByRole('button', { name: 'Copy Subscription Callback URL' })).toBeEnabled();
    expect(
      within(dialog).getByRole('heading', { name: 'How to configure your SMS provider' }),
    ).toBeInTheDocument();
  });

  it('shows Not generated for a missing URL and disables its Copy button', async () => {
    fetchMock.mockResolvedValue(
      json(200, {
        success: true,
        data: { ...urls('x'), subscriptionCallbackUrl: null, dlrCallbackUrl: null },
      }),
    );
    openModal();
    const field = await screen.findByRole('textbox', { name: 'Subscription Callback URL' });
    expect(field).toHaveAttribute('placeholder', CALLBACK_MESSAGES.notGenerated);
    expect(screen.getByRole('button', { name: 'Copy Subscription Callback URL' })).toBeDisabled();
  });

  it('names the signed-in admin’s company in the title while loading', async () => {
    fetchMock.mockImplementationOnce(never);
    openModal();
    expect(screen.getByText('Loading callback URLs...')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Callback URLs - Acme Corp' })).toBeInTheDocument();
  });

  it('names the company of the admin-panel row in the title before its URLs arrive', async () => {
    fetchMock.mockImplementationOnce(never);
    renderWithClient(
      <CallbackUrlsModal
        scope={{ kind: 'company', companyId: 9 }}
        companyName="Globex Telecom"
        onClose={() => {}}
      />,
    );
    expect(screen.getByRole('dialog', { name: 'Callback URLs - Globex Telecom' })).toBeInTheDocument();
  });

  it('keeps the name in the title when the fetch fails, and never shows a dangling dash', async () => {
    fetchMock.mockResolvedValue(
      json(500, { success: false, message: 'Internal server error', error: 'internal' }),
    );
    openModal();
    expect(await screen.findByText(CALLBACK_MESSAGES.fetchFailed)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Callback URLs - Acme Corp' })).toBeInTheDocument();
  });

  it('reads plain "Callback URLs" when no name is known yet', () => {
    fetchMock.mockImplementationOnce(never);
    renderWithClient(<CallbackUrlsModal scope={{ kind: 'my-company' }} onClose={() => {}} />);
    expect(screen.getByRole('dialog', { name: 'Callback URLs' })).toBeInTheDocument();
  });

  it('shows the fetch error with Retry', async () => {
    fetchMock.mockResolvedValueOnce(
      json(500, { success: false, message: 'Internal server error', error: 'internal' }),
    );
    fetchMock.mockResolvedValue(json(200, { success: true, data: urls('t') }));
    openModal();
    expect(await screen.findByText(CALLBACK_MESSAGES.fetchFailed)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('dialog', { name: 'Callback URLs - Acme Corp' })).toBeInTheDocument();
  });

  it('regenerates after confirmation and shows the new URLs; a failure says so', async () => {
    fetchMock.mockResolvedValueOnce(json(200, { success: true, data: urls('old-token') }));
    fetchMock.mockResolvedValueOnce(json(200, { success: true, data: urls('new-token') }));
    openModal();
    const field = await screen.findByRole('textbox', { name: 'Delivery Report (DLR) Callback URL' });
    fireEvent.click(screen.getByRole('button', { name: 'Regenerate URLs' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Regenerate callback URLs' });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Regenerate URLs' }));
    await vi.waitFor(() => expect(field).toHaveValue('http://sms.test/api/v1/callbacks/dlr/7/new-token'));
    expect(fetchMock.mock.calls[1]![0]).toBe('/api/v1/callbacks/my-company/regenerate');
    expect(fetchMock.mock.calls[1]![1].method).toBe('POST');
    const dialog = screen.getByRole('dialog', { name: 'Callback URLs - Acme Corp' });
    expect(within(dialog).getByRole('status')).toHaveTextContent(CALLBACK_MESSAGES.regenerated);

    fetchMock.mockResolvedValueOnce(json(503, { success: false, message: 'Down', error: 'unavailable' }));
    fireEvent.click(screen.getByRole('button', { name: 'Regenerate URLs' }));
    fireEvent.click(
      within(screen.getByRole('alertdialog', { name: 'Regenerate callback URLs' })).getByRole('button', {
        name: 'Regenerate URLs',
      }),
    );
    expect(await screen.findByText(`${CALLBACK_MESSAGES.regenerateFailed}: Down`)).toBeInTheDocument();
    expect(field).toHaveValue('http://sms.test/api/v1/callbacks/dlr/7/new-token');
  });
});
