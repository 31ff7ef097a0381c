import { ALL_ROLES, isRoleAllowed, type TRole } from '@sms/contracts/auth/roles';
import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { AccessDenied } from '../../components/access-denied.tsx';
import { FullPageSpinner } from '../../components/spinner.tsx';
import { useAuth } from '../../features/auth/components/auth-provider.tsx';

export type TLoginRedirectState = { from?: { pathname: string; search: string; hash: string } };

type TProtectedRouteProps = {
  /** One role that may open the route. */
  requiredRole?: TRole;
  /** Roles that may open the route; with neither prop, any signed-in user may. */
  allowedRoles?: readonly TRole[];
  /** The Access Denied text, where a screen has its own. */
  deniedMessage?: string;
  /** Rendered when allowed; without children the matched child route renders. */
  children?: ReactNode;
};

export function ProtectedRoute({
  requiredRole,
  allowedRoles,
  deniedMessage,
  children,
}: TProtectedRouteProps) {
  const { user, isAuthenticated, isLoading, hasSignedOut } = useAuth();
  const location = useLocation();

  if (isLoading) return <FullPageSpinner label="Loading your session" />;

  if (!isAuthenticated || !user) {
    // After a sign-out the page belonged to the previous user: the next one starts at /dashboard.
    if (hasSignedOut) return <RedirectToLogin />;
    const state: TLoginRedirectState = {
      from: { pathname: location.pathname, search: location.search, hash: location.hash },
    };
    return <RedirectToLogin state={state} />;
  }

  const roles = requiredRole ? [requiredRole] : (allowedRoles ?? ALL_ROLES);
  if (!isRoleAllowed(user.role, roles))
    return <AccessDenied userRole={user.role} requiredRoles={roles} message={deniedMessage} />;

  return children ?? <Outlet />;
}

/** The sign-in page loads with its route: the spinner stays up while its code arrives. */
function RedirectToLogin({ state }: { state?: TLoginRedirectState }) {
  return (
    <>
      <FullPageSpinner />
      <Navigate to="/login" replace state={state} />
    </>
  );
}
