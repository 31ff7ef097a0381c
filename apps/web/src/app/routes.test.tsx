import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { ErrorBoundary } from '../components/error-boundary.tsx';
import { ToastProvider } from '../components/toast/toast-provider.tsx';
import { makeUser } from '../test/auth-fixtures.tsx';
import { createRoutes } from './routes.tsx';

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let fetchMock: Mock<(url: string, init: RequestInit) => Promise<Response>>;

beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
});

function renderApp(path: string) {
  const router = createMemoryRouter(createRoutes(), { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>,
  );
  return router;
}

function signInAs(role: Parameters<typeof makeUser>[0]) {
  localStorage.setItem('accessToken', 'access-1');
  localStorage.setItem('refreshToken', 'refresh-1');
  fetchMock.mockResolvedValue(json(200, { success: true, data: { user: makeUser(role) } }));
}

describe('routes', () => {
  it('redirects / to /dashboard, and an unauthenticated visitor on to /login', async () => {
    const router = renderApp('/');

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    // The sign-in page's code loads with its route: the heading follows the navigation.
    expect(await screen.findByRole('heading', { name: 'Welcome to SMS Console' })).toBeInTheDocument();
  });

  it('shows the 404 page for an unknown path', () => {
    renderApp('/no/such/page');

    expect(screen.getByRole('heading', { name: 'Page Not Found' })).toBeInTheDocument();
    expect(screen.getByText("The page you're looking for doesn't exist.")).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to Dashboard' })).toHaveAttribute('href', '/dashboard');
  });

  it('greets a signed-in user inside the layout', async () => {
    signInAs('company_admin');
    renderApp('/dashboard');

    expect(await screen.findByRole('heading', { name: 'Welcome back, Ada!' })).toBeInTheDocument();
    expect(screen.getByPlaceholderText('Search...')).toBeInTheDocument();
    expect(
      screen.getByText(`© ${new Date().getFullYear()} SMS Console. All rights reserved.`),
    ).toBeInTheDocument();
    expect(screen.queryByText('Read-Only Access')).not.toBeInTheDocument();
  });

  it('shows viewers the company badge with Read-Only Access', async () => {
    signInAs('viewer');
    renderApp('/dashboard');

    const badge = await screen.findByTestId('read-only-badge');
    expect(badge).toHaveTextContent('Acme Corp');
    expect(badge).toHaveTextContent('Read-Only Access');
  });

  it('shows Access Denied inside the layout for a route the role may not open', async () => {
    signInAs('viewer');
    renderApp('/admin');

    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
    expect(screen.getByText('System administrator access required.')).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument();
  });

  it('gives the audit log its own Access Denied text', async () => {
    signInAs('company_admin');
    renderApp('/admin/audit');
    expect(await screen.findByText("You don't have permission to view audit logs.")).toBeInTheDocument();
  });

  it('gives other routes the general Access Denied text', async () => {
    signInAs('viewer');
    renderApp('/services');
    expect(await screen.findByText("You don't have permission to access this page.")).toBeInTheDocument();
  });

  it.each([
    ['/services', 'Services'],
    ['/subscribers', 'Subscribers'],
    ['/messages', 'Message Logs'],
    ['/reports', 'Reports & Analytics'],
    ['/admin', 'Admin Panel'],
    ['/admin/audit', 'Audit Log'],
  ])('opens %s for a system admin', async (path, title) => {
    signInAs('system_admin');
    renderApp(path);

    expect(await screen.findByRole('heading', { name: title, level: 1 })).toBeInTheDocument();
  });

  it('opens the user menu with first name, email and Sign out', async () => {
    signInAs('content_manager');
    renderApp('/dashboard');

    fireEvent.click(await screen.findByRole('button', { name: 'User menu for Ada' }));

    expect(screen.getByText('ada@acme.example.com')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeVisible();
  });

  it('opens and closes the menu drawer on small screens', async () => {
    signInAs('viewer');
    renderApp('/dashboard');

    fireEvent.click(await screen.findByRole('button', { name: 'Open menu' }));
    expect(screen.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'true');
    fireEvent.click(screen.getByTestId('sidebar-backdrop'));
    expect(screen.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
  });
});

const flaky = { shouldThrow: true };

function Flaky() {
  if (flaky.shouldThrow) throw new Error('kaboom');
  return <p>recovered</p>;
}

describe('ErrorBoundary', () => {
  it("shows 'Something went wrong' for a render error and renders again on Try Again", () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    flaky.shouldThrow = true;
    const router = createMemoryRouter([
      {
        path: '/',
        element: (
          <ErrorBoundary>
            <Flaky />
          </ErrorBoundary>
        ),
      },
    ]);
    render(<RouterProvider router={router} />);

    expect(screen.getByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh Page' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to Dashboard' })).toHaveAttribute('href', '/dashboard');

    flaky.shouldThrow = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(screen.getByText('recovered')).toBeInTheDocument();
  });
});
