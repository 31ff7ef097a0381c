import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { makeUser } from '../../../test/auth-fixtures.tsx';
import { AuthProvider, authReducer, initialAuthState, useAuth } from './auth-provider.tsx';

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

let fetchMock: Mock<(url: string, init: RequestInit) => Promise<Response>>;

beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
});

function Probe() {
  const auth = useAuth();
  return (
    <div>
      <p data-testid="state">
        {JSON.stringify({
          user: auth.user?.email ?? null,
          isAuthenticated: auth.isAuthenticated,
          isLoading: auth.isLoading,
          error: auth.error,
        })}
      </p>
      <button type="button" onClick={() => void auth.login({ email: 'a@b.c', password: 'pw' })}>
        do login
      </button>
      <button type="button" onClick={() => void auth.logout()}>
        do logout
      </button>
    </div>
  );
}

function renderProvider(path = '/dashboard') {
  const router = createMemoryRouter(
    [
      {
        element: (
          <AuthProvider>
            <Probe />
          </AuthProvider>
        ),
        children: [
          { path: '/dashboard', element: null },
          { path: '/login', element: null },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={new QueryClient()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

const state = () => JSON.parse(screen.getByTestId('state').textContent ?? '{}');

describe('authReducer', () => {
  it('starts loading, with no user and no error', () => {
    expect(initialAuthState).toMatchObject({
      user: null,
      isAuthenticated: false,
      isLoading: true,
      error: null,
    });
  });

  it('clears the error when a login starts and keeps the message when it fails', () => {
    const started = authReducer({ ...initialAuthState, error: 'old' }, { type: 'LOGIN_START' });
    expect(started).toMatchObject({ isLoading: true, error: null });

    const failed = authReducer(started, { type: 'LOGIN_FAILURE', error: 'Login failed' });
    expect(failed).toMatchObject({
      user: null,
      isAuthenticated: false,
      isLoading: false,
      error: 'Login failed',
    });
  });

  it('clears everything on logout', () => {
    const user = makeUser('viewer');
    const signedIn = authReducer(initialAuthState, { type: 'LOGIN_SUCCESS', user });
    expect(signedIn).toMatchObject({ user, isAuthenticated: true, isLoading: false });

    expect(authReducer(signedIn, { type: 'LOGOUT' })).toMatchObject({
      user: null,
      isAuthenticated: false,
      isLoading: false,
      error: null,
      hasSignedOut: false,
    });
  });

  it('marks an ended session as expired, never a sign-out, until the next sign-in starts', () => {
    const user = makeUser('viewer');
    const signedIn = authReducer(initialAuthState, { type: 'LOGIN_SUCCESS', user });
    const expired = authReducer(signedIn, { type: 'LOGOUT' });
    expect(expired).toMatchObject({ sessionExpired: true });
    expect(authReducer(signedIn, { type: 'SIGNED_OUT' })).toMatchObject({ sessionExpired: false });
    expect(authReducer(initialAuthState, { type: 'SESSION_MISSING' })).toMatchObject({
      sessionExpired: false,
    });
    expect(authReducer(initialAuthState, { type: 'SESSION_MISSING', expired: true })).toMatchObject({
      sessionExpired: true,
    });
    expect(authReducer(expired, { type: 'LOGIN_START' })).toMatchObject({ sessionExpired: false });
  });

  it('remembers a sign-out until the next sign-in, and only an explicit one', () => {
    const user = makeUser('viewer');
    const signedIn = authReducer(initialAuthState, { type: 'LOGIN_SUCCESS', user });

    const signedOut = authReducer(signedIn, { type: 'SIGNED_OUT' });
    expect(signedOut).toMatchObject({ user: null, isAuthenticated: false, hasSignedOut: true });
    expect(authReducer(signedOut, { type: 'LOGIN_SUCCESS', user })).toMatchObject({ hasSignedOut: false });
    expect(authReducer(signedIn, { type: 'LOGOUT' })).toMatchObject({ hasSignedOut: false });
  });
});

describe('AuthProvider', () => {
  it('without a stored token ends loading without calling the server', async () => {
    renderProvider();

    await waitFor(() => expect(state()).toMatchObject({ isLoading: false, isAuthenticated: false }));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('restores the session from the profile when an access token is stored', async () => {
    localStorage.setItem('accessToken', 'access-1');
    localStorage.setItem('refreshToken', 'refresh-1');
    fetchMock.mockResolvedValue(json(200, { success: true, data: { user: makeUser('company_admin') } }));

    renderProvider();

    await waitFor(() =>
      expect(state()).toMatchObject({ user: 'ada@acme.example.com', isAuthenticated: true }),
    );
    expect(String(fetchMock.mock.calls[0][0])).toBe('/api/v1/auth/profile');
  });

  it('removes both tokens when the stored session cannot be restored', async () => {
    localStorage.setItem('accessToken', 'access-1');
    localStorage.setItem('refreshToken', 'refresh-1');
    fetchMock.mockResolvedValue(json(500, { success: false, message: 'Boom', error: 'internal' }));

    renderProvider();

    await waitFor(() => expect(state()).toMatchObject({ isLoading: false, isAuthenticated: false }));
    expect(localStorage.getItem('accessToken')).toBeNull();
    expect(localStorage.getItem('refreshToken')).toBeNull();
  });

  it('stores both tokens and the user on a successful login', async () => {
    renderProvider('/login');
    await waitFor(() => expect(state()).toMatchObject({ isLoading: false }));
    fetchMock.mockResolvedValueOnce(
      json(200, {
        success: true,
        data: { accessToken: 'access-9', refreshToken: 'refresh-9', user: makeUser('viewer') },
      }),
    );

    fireEvent.click(screen.getByRole('button', { name: 'do login' }));

    await waitFor(() =>
      expect(state()).toMatchObject({ isAuthenticated: true, user: 'ada@acme.example.com' }),
    );
    expect(localStorage.getItem('accessToken')).toBe('access-9');
    expect(localStorage.getItem('refreshToken')).toBe('refresh-9');
  });

  it("keeps the server's message when a login fails, else 'Login failed'", async () => {
    renderProvider('/login');
    await waitFor(() => expect(state()).toMatchObject({ isLoading: false }));

    fetchMock.mockResolvedValueOnce(
      json(401, { success: false, message: 'Invalid email or password', error: 'unauthorized' }),
    );
    fireEvent.click(screen.getByRole('button', { name: 'do login' }));
    await waitFor(() => expect(state()).toMatchObject({ error: 'Invalid email or password' }));

    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    fireEvent.click(screen.getByRole('button', { name: 'do login' }));
    await waitFor(() => expect(state()).toMatchObject({ error: 'Login failed', isLoading: false }));
  });

  it('signs out locally and goes to /login even when the logout call fails', async () => {
    localStorage.setItem('accessToken', 'access-1');
    localStorage.setItem('refreshToken', 'refresh-1');
    fetchMock.mockResolvedValueOnce(json(200, { success: true, data: { user: makeUser('viewer') } }));
    const router = renderProvider();
    await waitFor(() => expect(state()).toMatchObject({ isAuthenticated: true }));

    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'do logout' })));

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(state()).toMatchObject({ user: null, isAuthenticated: false });
    expect(localStorage.getItem('accessToken')).toBeNull();
    expect(localStorage.getItem('refreshToken')).toBeNull();
    const logoutCall = fetchMock.mock.calls[1];
    expect(String(logoutCall[0])).toBe('/api/v1/auth/logout');
    expect(JSON.parse(String(logoutCall[1].body))).toEqual({ refreshToken: 'refresh-1' });
  });

  it('signs the user out when the API client reports that the session cannot be renewed', async () => {
    localStorage.setItem('accessToken', 'access-1');
    localStorage.setItem('refreshToken', 'refresh-1');
    fetchMock.mockResolvedValueOnce(json(200, { success: true, data: { user: makeUser('viewer') } }));
    renderProvider();
    await waitFor(() => expect(state()).toMatchObject({ isAuthenticated: true }));

    const { apiRequest } = await import('../../../lib/api-client.ts');
    fetchMock
      .mockResolvedValueOnce(
        json(401, { success: false, message: 'Token has expired', error: 'token_expired' }),
      )
      .mockResolvedValueOnce(
        json(401, { success: false, message: 'Invalid refresh token', error: 'unauthorized' }),
      );
    await act(async () => {
      await apiRequest('/reports').catch(() => {});
    });

    expect(state()).toMatchObject({ user: null, isAuthenticated: false });
    expect(localStorage.getItem('accessToken')).toBeNull();
  });
});
