import { AUTH_MESSAGES, type TLoginRequest } from '@sms/contracts/auth/login';
import type { TUser } from '@sms/contracts/auth/user';
import { useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useReducer,
} from 'react';
import { useNavigate } from 'react-router';
import { getServerMessage, setLogoutHandler } from '../../../lib/api-client.ts';
import { clearTokens, getAccessToken, getRefreshToken, setTokens } from '../../../lib/token-storage.ts';
import { getProfile } from '../api/get-profile.ts';
import { login as loginRequest } from '../api/login.ts';
import { logout as logoutRequest } from '../api/logout.ts';

export type TAuthState = {
  user: TUser | null;
  isAuthenticated: boolean;
  isLoading: boolean;
  error: string | null;
  /** false until the stored session (if any) has been checked at start-up. */
  isSessionChecked: boolean;
  /**
   * true after the user signed out in this tab (not when the session merely expired): the guards
   * then send them to /login without remembering the page, so the next user starts at /dashboard.
   */
  hasSignedOut: boolean;
  /** true after the server stopped accepting the session (not a sign-out): the sign-in page says why. */
  sessionExpired: boolean;
};

type TAuthAction =
  | { type: 'LOGIN_START' }
  | { type: 'LOGIN_SUCCESS'; user: TUser }
  | { type: 'LOGIN_FAILURE'; error: string }
  /** The session expired or was revoked while in use. */
  | { type: 'LOGOUT' }
  | { type: 'SIGNED_OUT' }
  | { type: 'SESSION_RESTORED'; user: TUser }
  | { type: 'SESSION_MISSING'; expired?: boolean };

export type TAuthContext = TAuthState & {
  login: (credentials: TLoginRequest) => Promise<boolean>;
  logout: () => Promise<void>;
};

export const initialAuthState: TAuthState = {
  user: null,
  isAuthenticated: false,
  isLoading: true,
  error: null,
  isSessionChecked: false,
  hasSignedOut: false,
  sessionExpired: false,
};

export function authReducer(state: TAuthState, action: TAuthAction): TAuthState {
  switch (action.type) {
    case 'LOGIN_START':
      return { ...state, isLoading: true, error: null, sessionExpired: false };
    case 'LOGIN_SUCCESS':
    case 'SESSION_RESTORED':
      return {
        user: action.user,
        isAuthenticated: true,
        isLoading: false,
        error: null,
        isSessionChecked: true,
        hasSignedOut: false,
        sessionExpired: false,
      };
    case 'LOGIN_FAILURE':
      return { ...state, user: null, isAuthenticated: false, isLoading: false, error: action.error };
    case 'LOGOUT':
    case 'SESSION_MISSING':
    case 'SIGNED_OUT':
      return {
        user: null,
        isAuthenticated: false,
        isLoading: false,
        error: null,
        isSessionChecked: true,
        hasSignedOut: action.type === 'SIGNED_OUT',
        sessionExpired: action.type === 'LOGOUT' || (action.type === 'SESSION_MISSING' && !!action.expired),
      };
  }
}

export const AuthContext = createContext<TAuthContext | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, dispatch] = useReducer(authReducer, initialAuthState);
  const queryClient = useQueryClient();
  const navigate = useNavigate();

  useEffect(() => {
    const controller = new AbortController();
    if (!getAccessToken()) {
      dispatch({ type: 'SESSION_MISSING' });
      return;
    }
    getProfile(controller.signal)
      .then(({ user }) => dispatch({ type: 'SESSION_RESTORED', user }))
      .catch(() => {
        if (controller.signal.aborted) return;
        clearTokens();
        // A stored session the server no longer accepts: the sign-in page says it expired.
        dispatch({ type: 'SESSION_MISSING', expired: true });
      });
    return () => controller.abort();
  }, []);

  useEffect(
    () =>
      // The guards then send the user to /login, remembering where they were.
      setLogoutHandler(() => {
        queryClient.clear();
        dispatch({ type: 'LOGOUT' });
      }),
    [queryClient],
  );

  const login = useCallback(
    async (credentials: TLoginRequest) => {
      dispatch({ type: 'LOGIN_START' });
      try {
        const { accessToken, refreshToken, user } = await loginRequest(credentials);
        setTokens({ accessToken, refreshToken });
        queryClient.clear();
        dispatch({ type: 'LOGIN_SUCCESS', user });
        return true;
      } catch (error) {
        dispatch({ type: 'LOGIN_FAILURE', error: getServerMessage(error) ?? AUTH_MESSAGES.loginFailed });
        return false;
      }
    },
    [queryClient],
  );

  const logout = useCallback(async () => {
    try {
      await logoutRequest(getRefreshToken());
    } catch {
      // Signing out must work offline or with a dead session too: the local session ends regardless.
    } finally {
      clearTokens();
      queryClient.clear();
      // The guard of the page on screen redirects too, on this same state change (its <Navigate>
      // runs after render and wins over this one): hasSignedOut keeps the page out of its redirect.
      dispatch({ type: 'SIGNED_OUT' });
      navigate('/login', { replace: true });
    }
  }, [navigate, queryClient]);

  const value = useMemo(() => ({ ...state, login, logout }), [state, login, logout]);

  return <AuthContext value={value}>{children}</AuthContext>;
}

export function useAuth() {
  const context = useContext(AuthContext);
  if (!context) throw new Error('useAuth must be used inside AuthProvider');
  return context;
}
