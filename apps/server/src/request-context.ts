import type { TApiKeyScope } from '@sms/contracts/api-keys/api-key';
import type { TRole } from '@sms/contracts/auth/roles';

/** Who is acting, taken from the verified token and the current user row, never from the request body. */
export type Actor = {
  userId: number;
  role: TRole;
  companyId: number | null;
  name: string;
  email: string;
  sessionId: string;
  /**
   * Set when the request came with an API key (modules/api-keys): the actor is then the company's
   * admin who created it, named after the key, and only routes one of its scopes opens admit it.
   */
  apiKey?: { id: number; name: string; scopes: readonly TApiKeyScope[] };
};

/** `readOnly`: the request only reads (GET, HEAD), so it may go to the read replica (db/actor-transaction.ts). */
export type RequestContext = {
  actor: Actor;
  ip: string;
  userAgent: string | null;
  readOnly: boolean;
};

/** The company a query must be limited to, or null for platform staff who see every company. */
export function tenantOf(actor: Actor): number | null {
  return actor.role === 'system_admin' ? null : actor.companyId;
}
