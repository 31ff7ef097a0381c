import { formatRole } from '@sms/contracts/auth/roles';
import { useNavigate } from 'react-router';
import { Button } from './button.tsx';
import { LockIcon } from './icons.tsx';

export const DEFAULT_ACCESS_DENIED_MESSAGE = "You don't have permission to access this page.";

type TAccessDeniedProps = {
  userRole: string | null | undefined;
  requiredRoles: readonly string[];
  /** A screen's own wording (the admin panel and audit log have theirs). */
  message?: string;
};

export function AccessDenied({
  userRole,
  requiredRoles,
  message = DEFAULT_ACCESS_DENIED_MESSAGE,
}: TAccessDeniedProps) {
  const navigate = useNavigate();

  function goBack() {
    // react-router keeps its history index in history.state; at index 0 there is nowhere to go back to.
    const index = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (index > 0) navigate(-1);
    else navigate('/dashboard', { replace: true });
  }

  return (
    <div className="flex min-h-[60vh] items-center justify-center px-4 py-12">
      <div className="w-full max-w-md rounded-2xl border border-slate-200 bg-white p-8 text-center shadow-sm">
        <div className="mx-auto flex size-12 items-center justify-center rounded-full bg-red-50 text-red-600">
          <LockIcon className="size-6" />
        </div>
        <h1 className="mt-4 text-xl font-semibold text-slate-900">Access Denied</h1>
        <p className="mt-2 text-sm text-slate-600">{message}</p>
        <dl className="mt-6 space-y-2 rounded-lg bg-slate-50 p-4 text-left text-sm">
          <div className="flex justify-between gap-4">
            <dt className="text-slate-500">Your role</dt>
            <dd className="font-medium capitalize text-slate-900">{formatRole(userRole)}</dd>
          </div>
          <div className="flex justify-between gap-4">
            <dt className="text-slate-500">
              {requiredRoles.length === 1 ? 'Required role' : 'Required roles'}
            </dt>
            <dd className="text-right font-medium capitalize text-slate-900">
              {requiredRoles.map((role) => formatRole(role)).join(', ')}
            </dd>
          </div>
        </dl>
        <Button className="mt-6" onClick={goBack}>
          Go Back
        </Button>
      </div>
    </div>
  );
}
