import type { TRole } from '@sms/contracts/auth/roles';
import { fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { TAuthContext } from '../../features/auth/components/auth-provider.tsx';
import { makeAuth, signedIn, WithAuth } from '../../test/auth-fixtures.tsx';
import { ProtectedRoute } from './protected-route.tsx';

function LoginProbe() {
  const location = useLocation();
  return <p>login page, from {JSON.stringify(location.state)}</p>;
}

type TGuardProps = { requiredRole?: TRole; allowedRoles?: readonly TRole[] };

function renderGuard(auth: TAuthContext, guard: TGuardProps, initialEntries = ['/secret?tab=2#top']) {
  const router = createMemoryRouter(
    [
      { path: '/login', element: <LoginProbe /> },
      { path: '/dashboard', element: <p>dashboard page</p> },
      {
        path: '/secret',
        element: (
          <ProtectedRoute {...guard}>
            <p>secret page</p>
          </ProtectedRoute>
        ),
      },
    ],
    { initialEntries },
  );
  render(
    <WithAuth value={auth}>
      <RouterProvider router={router} />
    </WithAuth>,
  );
  return router;
}

describe('ProtectedRoute', () => {
  it('shows a spinner while the session loads', () => {
    renderGuard(makeAuth({ isLoading: true, isSessionChecked: false }), {});

    expect(screen.getByRole('status')).toHaveTextContent('Loading your session');
    expect(screen.queryByText('secret page')).not.toBeInTheDocument();
    expect(screen.queryByText(/login page/)).not.toBeInTheDocument();
  });

  it('sends an unauthenticated visitor to /login, remembering where they were going', () => {
    const router = renderGuard(makeAuth(), { allowedRoles: ['viewer'] });

    expect(router.state.location.pathname).toBe('/login');
    expect(screen.getByText(/login page/)).toHaveTextContent(
      '{"from":{"pathname":"/secret","search":"?tab=2","hash":"#top"}}',
    );
  });

  it('keeps a spinner up while the sign-in page it redirects to is still loading its code', async () => {
    const router = createMemoryRouter(
      [
        // The sign-in page loads with its route; this one never arrives.
        { path: '/login', lazy: { Component: () => new Promise<never>(() => {}) } },
        { path: '/secret', element: <ProtectedRoute /> },
      ],
      { initialEntries: ['/secret'] },
    );
    render(
      <WithAuth value={makeAuth()}>
        <RouterProvider router={router} />
      </WithAuth>,
    );

    await vi.waitFor(() => expect(router.state.navigation.location?.pathname).toBe('/login'));
    expect(screen.getByRole('status')).toHaveTextContent('Loading');
  });

  it('after a sign-out in this tab sends to /login without remembering the page', () => {
    const router = renderGuard(makeAuth({ hasSignedOut: true }), { allowedRoles: ['viewer'] });

    expect(router.state.location.pathname).toBe('/login');
    expect(screen.getByText(/login page/)).toHaveTextContent('login page, from null');
  });

  it('renders the page for any signed-in user when no role is given', () => {
    renderGuard(signedIn('viewer'), {});

    expect(screen.getByText('secret page')).toBeInTheDocument();
  });

  it('accepts a list of allowed roles', () => {
    renderGuard(signedIn('content_manager'), { allowedRoles: ['system_admin', 'content_manager'] });

    expect(screen.getByText('secret page')).toBeInTheDocument();
  });

  it('accepts one required role', () => {
    renderGuard(signedIn('system_admin'), { requiredRole: 'system_admin' });

    expect(screen.getByText('secret page')).toBeInTheDocument();
  });

  it('shows Access Denied with the user role and the required roles to a user whose role is not allowed', () => {
    renderGuard(signedIn('viewer'), { allowedRoles: ['system_admin', 'company_admin'] });

    expect(screen.queryByText('secret page')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
    expect(screen.getByText("You don't have permission to access this page.")).toBeInTheDocument();
    expect(screen.getByText('Your role').nextElementSibling).toHaveTextContent('viewer');
    expect(screen.getByText('Required roles').nextElementSibling).toHaveTextContent(
      'system admin, company admin',
    );
  });

  it('treats a user without a known role as a viewer', () => {
    const auth = signedIn('viewer');
    renderGuard(
      { ...auth, user: { ...auth.user!, role: 'ghost' as TRole } },
      { requiredRole: 'company_admin' },
    );

    expect(screen.getByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
    expect(screen.getByText('Your role').nextElementSibling).toHaveTextContent('viewer');
    expect(screen.getByText('Required role').nextElementSibling).toHaveTextContent('company admin');
  });

  it('goes back from Access Denied to the previous page', () => {
    const router = renderGuard(signedIn('viewer'), { requiredRole: 'system_admin' }, [
      '/dashboard',
      '/secret',
    ]);

    fireEvent.click(screen.getByRole('button', { name: 'Go Back' }));

    return vi.waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });
});
