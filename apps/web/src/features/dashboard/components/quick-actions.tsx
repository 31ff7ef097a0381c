import { isRoleAllowed, ROUTE_ROLES, type TRole } from '@sms/contracts/auth/roles';
import { Link } from 'react-router';
import { buttonStyles } from '../../../components/button.tsx';
import { ManageWebhooksButton } from '../../callbacks/components/manage-webhooks-button.tsx';

const LINKS = [
  { label: 'Manage Services', to: '/services', roles: ROUTE_ROLES.services },
  // Content managers may read the message logs but not send: their shortcut says so.
  { label: 'Send Messages', to: '/messages', roles: ['system_admin', 'company_admin'] },
  { label: 'View Messages', to: '/messages', roles: ['content_manager'] },
  { label: 'View Subscribers', to: '/subscribers', roles: ROUTE_ROLES.subscribers },
  { label: 'View Reports', to: '/reports', roles: ROUTE_ROLES.reports },
  { label: 'Admin Panel', to: '/admin', roles: ROUTE_ROLES.admin },
] as const satisfies readonly { label: string; to: string; roles: readonly TRole[] }[];

/** Shortcuts from the dashboard; each role sees only the destinations it may open. */
export function QuickActions({ role }: { role: TRole }) {
  return (
    <section
      aria-labelledby="quick-actions-heading"
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
    >
      <h2 id="quick-actions-heading" className="text-sm font-semibold text-slate-900">
        Quick Actions
      </h2>
      <div className="mt-4 flex flex-wrap gap-3">
        {LINKS.filter((link) => isRoleAllowed(role, link.roles)).map((link) => (
          <Link key={link.label} to={link.to} className={buttonStyles('secondary')}>
            {link.label}
          </Link>
        ))}
        {role === 'company_admin' ? (
          <>
            <ManageWebhooksButton />
            <Link to="/settings/api-keys" className={buttonStyles('secondary')}>
              API Keys
            </Link>
            <Link to="/settings/webhooks" className={buttonStyles('secondary')}>
              Webhook Endpoints
            </Link>
          </>
        ) : null}
      </div>
    </section>
  );
}
