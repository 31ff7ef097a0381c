import type { TRole } from '@sms/contracts/auth/roles';
import type { LeadedRead } from './db/leaded-read.ts';
import type { RequestTransaction } from './db/request-transaction.ts';

/** Who is acting, taken from the verified token and the current user row, never from the request body. */
export type Actor = {
  userId: number;
  role: TRole;
  companyId: number | null;
  name: string;
  email: string;
  sessionId: string;
};

/**
 * `readOnly`: the request only reads (GET, HEAD). Its statements are prepared on the connection and
 * planned for each call's values (db/actor-transaction.ts); a write keeps PostgreSQL's defaults.
 * `transaction`: a read's one transaction, opened and bound by its sign-in check, or a read whose
 * statements each carry that check (db/leaded-read.ts; plugins/authenticate.ts).
 */
export type RequestContext = {
  actor: Actor;
  ip: string;
  userAgent: string | null;
  readOnly: boolean;
  transaction?: RequestTransaction | LeadedRead;
};

/** The company a query must be limited to, or null for platform staff who see every company. */
export function tenantOf(actor: Actor): number | null {
  return actor.role === 'system_admin' ? null : actor.companyId;
}
