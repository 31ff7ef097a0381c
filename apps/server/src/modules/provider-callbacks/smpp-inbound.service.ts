import type { AppDeps } from '../../app-deps.ts';
import { companyScope, inTenantTransaction } from '../../db/tenant-scope.ts';
import type { InboundSms } from '../../messaging/providers/provider.ts';
import * as repo from './provider-callbacks.repository.ts';
import { handleSubscriptionCallback } from './subscription-callback.service.ts';

/**
 * A handset's message that came over a company's SMPP link (deliver_sm): stored and acted on as
 * Africa's Talking's incoming-message callback is (a STOP unsubscribes, a service keyword subscribes,
 * the company's opt-in rules hold), in one transaction bound to the company; its deliver_sm is
 * answered once this resolves. The SMSC's own time is kept when it gives one. SMPP gives a handset
 * message no id: one the SMSC sends again (our answer lost) is stored again.
 */
export function receiveSmppInbound(deps: AppDeps, companyId: number, message: InboundSms) {
  return inTenantTransaction(deps.db, companyScope(companyId), async (trx) => {
    const status = await repo.findCompanyStatus(trx, companyId);
    if (status === null) return null;
    const body = {
      from: message.from,
      to: message.to,
      text: message.text,
      ...(message.receivedAt && { date: message.receivedAt.toISOString() }),
    };
    const audit = { user: null, ip: null, userAgent: 'SMPP deliver_sm' };
    return handleSubscriptionCallback(deps, trx, companyId, body, audit, status === 'active');
  });
}
