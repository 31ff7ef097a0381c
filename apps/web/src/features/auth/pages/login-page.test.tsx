import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { makeAuth, signedIn, WithAuth } from '../../../test/auth-fixtures.tsx';
import type { TAuthContext } from '../components/auth-provider.tsx';
import LoginPage from './login-page.tsx';

function renderLogin(auth: TAuthContext, state?: unknown) {
  const router = createMemoryRouter(
    [
      { path: '/login', element: <LoginPage /> },
      { path: '/dashboard', element: <p>dashboard page</p> },
      { path: '/reports', element: <p>reports page</p> },
    ],
    { initialEntries: [{ pathname: '/login', state }] },
  );
  render(
    <WithAuth value={auth}>
      <RouterProvider router={router} />
    </WithAuth>,
  );
  return router;
}

describe('LoginPage', () => {
  it('shows the welcome heading, subtitle, fields and the Sign in button', () => {
    renderLogin(makeAuth());

    expect(screen.getByRole('heading', { name: 'Welcome to SMS Console' })).toBeInTheDocument();
    expect(screen.getByText('Sign in to your account to continue')).toBeInTheDocument();
    const email = screen.getByLabelText('Email');
    expect(email).toHaveAttribute('type', 'email');
    expect(email).toBeRequired();
    expect(screen.getByLabelText('Password', { selector: 'input' })).toBeRequired();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('says the session expired when it did, and names the page in the title', () => {
    renderLogin(makeAuth({ sessionExpired: true }));
    expect(screen.getByRole('status')).toHaveTextContent('Your session has expired. Please sign in again.');
    expect(document.title).toBe('Sign in · SMS Console');
  });

  it('says nothing of an expiry on a plain visit', () => {
    renderLogin(makeAuth());
    expect(screen.queryByText(/session has expired/)).not.toBeInTheDocument();
  });

  it('shows and hides the password', () => {
    renderLogin(makeAuth());
    const password = screen.getByLabelText('Password', { selector: 'input' });
    expect(password).toHaveAttribute('type', 'password');

    fireEvent.click(screen.getByRole('button', { name: 'Show password' }));
    expect(password).toHaveAttribute('type', 'text');

    fireEvent.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it('submits the credentials to login', async () => {
    const login = vi.fn(async () => true);
    renderLogin(makeAuth({ login }));

    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'owner@acme.example.com' } });
    fireEvent.change(screen.getByLabelText('Password', { selector: 'input' }), {
      target: { value: 'Password123!' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));

    await waitFor(() =>
      expect(login).toHaveBeenCalledWith({ email: 'owner@acme.example.com', password: 'Password123!' }),
    );
  });

  it('reads Signing in... and is disabled while signing in', () => {
    renderLogin(makeAuth({ isLoading: true }));

    expect(screen.getByRole('button', { name: 'Signing in...' })).toBeDisabled();
  });

  it('shows the error in a red alert box', () => {
    renderLogin(makeAuth({ error: 'Invalid email or password' }));

    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Invalid email or password');
    expect(alert.className).toContain('bg-red-50');
  });

  it('sends a signed-in user to /dashboard', () => {
    const router = renderLogin(signedIn('viewer'));

    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('sends a signed-in user back to the remembered origin', () => {
    const router = renderLogin(signedIn('viewer'), {
      from: { pathname: '/reports', search: '?timeframe=30d', hash: '' },
    });

    expect(router.state.location.pathname).toBe('/reports');
    expect(router.state.location.search).toBe('?timeframe=30d');
  });

  it('shows a spinner until the stored session has been checked', () => {
    renderLogin(makeAuth({ isLoading: true, isSessionChecked: false }));

    expect(screen.getByRole('status')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });
});
