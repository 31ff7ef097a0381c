import type { TRole } from '@sms/contracts/auth/roles';
import type { AppDeps } from '../app-deps.ts';
import { authenticate, requireRoles } from './authenticate.ts';

/** The preHandler list of a protected route: a valid token, then (optionally) one of the roles. */
export function guard(deps: AppDeps, roles?: TRole | readonly TRole[]) {
  const checks = [authenticate(deps)];
  if (roles) checks.push(requireRoles(roles));
  return checks;
}
