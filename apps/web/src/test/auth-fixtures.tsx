import type { TRole } from '@sms/contracts/auth/roles';
import type { TUser } from '@sms/contracts/auth/user';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { AuthContext, type TAuthContext } from '../features/auth/components/auth-provider.tsx';

export function makeUser(role: TRole, overrides: Partial<TUser> = {}): TUser {
  return {
    id: 1,
    name: 'Ada Lovelace',
    firstName: 'Ada',
    email: 'ada@acme.example.com',
    role,
    status: 'active',
    companyId: role === 'system_admin' ? null : 7,
    company: role === 'system_admin' ? null : { name: 'Acme Corp' },
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function makeAuth(overrides: Partial<TAuthContext> = {}): TAuthContext {
  return {
    user: null,
    isAuthenticated: false,
    isLoading: false,
    error: null,
    isSessionChecked: true,
    hasSignedOut: false,
    sessionExpired: false,
    login: vi.fn(async () => true),
    logout: vi.fn(async () => {}),
    ...overrides,
  };
}

export function signedIn(role: TRole, overrides: Partial<TAuthContext> = {}) {
  return makeAuth({ user: makeUser(role), isAuthenticated: true, ...overrides });
}

export function WithAuth({ value, children }: { value: TAuthContext; children: ReactNode }) {
  return <AuthContext value={value}>{children}</AuthContext>;
}
