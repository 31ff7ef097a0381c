export const ROLES = ['system_admin', 'company_admin', 'content_manager', 'viewer'] as const;
export type TRole = (typeof ROLES)[number];

export const COMPANY_ROLES = [
  'company_admin',
  'content_manager',
  'viewer',
] as const satisfies readonly TRole[];

export const ALL_ROLES: readonly TRole[] = ROLES;

/** Who may open each console route (spec section 2, route table). Server guards use the same lists. */
export const ROUTE_ROLES = {
  dashboard: ALL_ROLES,
  services: ['system_admin', 'company_admin', 'content_manager'],
  subscribers: ['system_admin', 'company_admin'],
  messages: ['system_admin', 'company_admin', 'content_manager'],
  reports: ALL_ROLES,
  admin: ['system_admin'],
  audit: ['system_admin'],
} as const satisfies Record<string, readonly TRole[]>;

/** Sidebar entries in order (spec section 2, sidebar menu by role). */
export const MENU = [
  { label: 'Dashboard', path: '/dashboard', roles: ROUTE_ROLES.dashboard },
  { label: 'Services', path: '/services', roles: ROUTE_ROLES.services },
  { label: 'Subscribers', path: '/subscribers', roles: ROUTE_ROLES.subscribers },
  { label: 'Messages', path: '/messages', roles: ROUTE_ROLES.messages },
  { label: 'Reports', path: '/reports', roles: ROUTE_ROLES.reports },
  { label: 'Admin Panel', path: '/admin', roles: ROUTE_ROLES.admin },
  { label: 'Audit Log', path: '/admin/audit', roles: ROUTE_ROLES.audit },
] as const;

/** A missing or unknown role is treated as viewer (spec: sidebar menu). */
export function effectiveRole(role: string | null | undefined): TRole {
  return (ROLES as readonly string[]).includes(role ?? '') ? (role as TRole) : 'viewer';
}

export function isRoleAllowed(role: string | null | undefined, allowed: TRole | readonly TRole[]) {
  const list: readonly TRole[] = typeof allowed === 'string' ? [allowed] : allowed;
  return list.includes(effectiveRole(role));
}

/** 'company_admin' -> 'company admin' (sidebar footer). */
export function formatRole(role: string | null | undefined) {
  return effectiveRole(role).replaceAll('_', ' ');
}
