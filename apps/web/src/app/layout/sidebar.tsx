import { formatRole, isRoleAllowed, MENU } from '@sms/contracts/auth/roles';
import type { TUser } from '@sms/contracts/auth/user';
import { PRODUCT_NAME } from '@sms/contracts/common/product';
import { NavLink } from 'react-router';
import {
  AdminIcon,
  AuditIcon,
  CloseIcon,
  DashboardIcon,
  LogoMark,
  MessagesIcon,
  ReportsIcon,
  ServicesIcon,
  SubscribersIcon,
} from '../../components/icons.tsx';

const MENU_ICONS: Record<(typeof MENU)[number]['path'], typeof DashboardIcon> = {
  '/dashboard': DashboardIcon,
  '/services': ServicesIcon,
  '/subscribers': SubscribersIcon,
  '/messages': MessagesIcon,
  '/reports': ReportsIcon,
  '/admin': AdminIcon,
  '/admin/audit': AuditIcon,
};

export function getMenuForRole(role: string | null | undefined) {
  return MENU.filter((entry) => isRoleAllowed(role, entry.roles));
}

type TSidebarProps = {
  user: Pick<TUser, 'firstName' | 'role'>;
  isOpen: boolean;
  onClose: () => void;
};

export function Sidebar({ user, isOpen, onClose }: TSidebarProps) {
  const entries = getMenuForRole(user.role);

  return (
    <aside
      id="app-sidebar"
      aria-label="Sidebar"
      className={[
        'fixed inset-y-0 left-0 z-40 flex w-64 flex-col border-r border-slate-200 bg-white',
        'transition-[transform,visibility] duration-200 ease-out lg:visible lg:translate-x-0',
        isOpen ? 'visible translate-x-0 shadow-xl' : 'invisible -translate-x-full',
      ].join(' ')}
    >
      <div className="flex h-16 shrink-0 items-center justify-between gap-2 border-b border-slate-200 px-5">
        <NavLink
          to="/dashboard"
          className="flex items-center gap-2.5 rounded-md focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          <LogoMark className="size-8" />
          <span className="text-base font-semibold text-slate-900">{PRODUCT_NAME}</span>
        </NavLink>
        <button
          type="button"
          onClick={onClose}
          className="rounded-md p-1.5 text-slate-500 hover:bg-slate-100 hover:text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-600 lg:hidden"
          aria-label="Close menu"
        >
          <CloseIcon className="size-5" />
        </button>
      </div>

      <nav aria-label="Main navigation" className="flex-1 overflow-y-auto px-3 py-4">
        <ul className="space-y-1">
          {entries.map((entry) => {
            const Icon = MENU_ICONS[entry.path];
            return (
              <li key={entry.path}>
                <NavLink
                  to={entry.path}
                  end
                  onClick={onClose}
                  className={({ isActive }) =>
                    [
                      'group flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium transition-colors',
                      'focus-visible:outline-2 focus-visible:outline-indigo-600',
                      isActive
                        ? 'bg-indigo-50 text-indigo-700'
                        : 'text-slate-600 hover:bg-slate-50 hover:text-slate-900',
                    ].join(' ')
                  }
                >
                  {({ isActive }) => (
                    <>
                      <Icon
                        className={`size-5 shrink-0 ${isActive ? 'text-indigo-600' : 'text-slate-400 group-hover:text-slate-500'}`}
                      />
                      {entry.label}
                    </>
                  )}
                </NavLink>
              </li>
            );
          })}
        </ul>
      </nav>

      <div className="flex items-center gap-3 border-t border-slate-200 px-5 py-4" data-testid="sidebar-user">
        <span
          className="flex size-9 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-sm font-semibold text-indigo-700"
          aria-hidden="true"
        >
          {user.firstName.charAt(0).toUpperCase()}
        </span>
        <div className="min-w-0">
          <p className="truncate text-sm font-medium text-slate-900">{user.firstName}</p>
          <p className="truncate text-xs capitalize text-slate-500">{formatRole(user.role)}</p>
        </div>
      </div>
    </aside>
  );
}
