import { CALLBACK_MESSAGES, type TCallbackType } from '@sms/contracts/callbacks/callback-urls';
import type { Transaction } from 'kysely';
import type { AppDeps } from '../../app-deps.ts';
import type { DB } from '../../db/schema.ts';
import { companyScope, inTenantTransaction } from '../../db/tenant-scope.ts';
import { AppError } from '../../errors.ts';
import { callbackCompanyStatus } from '../callbacks/callback-tokens.ts';

export type CallbackUrlParams = { companyId: string; token: string };

/**
 * The one way a provider callback (subscription notifications, delivery reports) reaches the
 * database: one transaction bound to the company its URL names, run only when the token is that
 * company's current token of this type, whatever the company's status (work is told whether it
 * is active: a company that is not takes no opt-ins). Everything else (an unknown or malformed
 * company id, a wrong token, the other callback type's token, another company's token) is the same
 * 404 and changes nothing.
 */
export function inCallbackTransaction<T>(
  deps: AppDeps,
  type: TCallbackType,
  params: CallbackUrlParams,
  work: (trx: Transaction<DB>, companyId: number, companyActive: boolean) => Promise<T>,
): Promise<T> {
  const companyId = /^\d{1,15}$/.test(params.companyId) ? Number(params.companyId) : 0;
  return inTenantTransaction(deps.db, companyScope(companyId), async (trx) => {
    const status = await callbackCompanyStatus(trx, type, companyId, params.token);
    if (status === null) throw new AppError('not_found', CALLBACK_MESSAGES.invalidCallback);
    return work(trx, companyId, status === 'active');
  });
}
