import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { PRODUCT_NAME } from '@sms/contracts/common/product';
import { Navigate, useLocation } from 'react-router';
import type { TLoginRedirectState } from '../../../app/guards/protected-route.tsx';
import { LogoMark } from '../../../components/icons.tsx';
import { FullPageSpinner } from '../../../components/spinner.tsx';
import { useDocumentTitle } from '../../../lib/use-document-title.ts';
import { useAuth } from '../components/auth-provider.tsx';
import { LoginForm } from '../components/login-form.tsx';

function redirectTarget(state: unknown) {
  const from = (state as TLoginRedirectState | null)?.from;
  if (!from?.pathname || from.pathname === '/login') return '/dashboard';
  return `${from.pathname}${from.search ?? ''}${from.hash ?? ''}`;
}

export default function LoginPage() {
  const { isAuthenticated, isLoading, isSessionChecked, sessionExpired, error, login } = useAuth();
  const location = useLocation();
  useDocumentTitle('Sign in');

  if (!isSessionChecked) return <FullPageSpinner label="Loading your session" />;
  if (isAuthenticated) return <Navigate to={redirectTarget(location.state)} replace />;

  return (
    <main className="flex min-h-screen items-center justify-center bg-gradient-to-br from-slate-50 via-white to-indigo-50 px-4 py-12">
      <div className="w-full max-w-md">
        <div className="flex justify-center">
          <LogoMark className="size-12" />
        </div>
        <div className="mt-6 text-center">
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{`Welcome to ${PRODUCT_NAME}`}</h1>
          <p className="mt-2 text-sm text-slate-600">Sign in to your account to continue</p>
        </div>
        {sessionExpired ? (
          <p
            role="status"
            className="mt-6 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-center text-sm text-amber-800"
          >
            {AUTH_MESSAGES.sessionExpired}
          </p>
        ) : null}
        <div className="mt-8 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
          <LoginForm onSubmit={login} isSubmitting={isLoading} error={error} />
        </div>
      </div>
    </main>
  );
}
