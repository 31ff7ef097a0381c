import { createHash } from 'node:crypto';
import type { AppDeps } from '../../app-deps.ts';
import { companyScope, inTenantTransaction } from '../../db/tenant-scope.ts';
import type { InboundSms } from '../../messaging/providers/provider.ts';
import * as repo from './provider-callbacks.repository.ts';
import { handleSubscriptionCallback } from './subscription-callback.service.ts';

/**
 * How long after a handset message one with the same sender, address and text, and no SMSC time,
 * is taken for the SMSC sending it again (its response timer ran out: tens of seconds), not the
 * handset sending it again: two messages of the same text a minute apart are both kept.
 */
const SMPP_RESEND_WINDOW_MS = 30_000;

/**
 * A handset's message that came over a company's SMPP link (deliver_sm): stored and acted on as
 * Africa's Talking's incoming-message callback is (a STOP unsubscribes, a service keyword subscribes,
 * the company's opt-in rules hold), in one transaction bound to the company; its deliver_sm is
 * answered once this resolves. The SMSC's own time is kept when it gives one.
 *
 * SMPP gives a handset message no id, and an SMSC whose deliver_sm_resp was lost or late sends the
 * message again: one is stored. With the SMSC's time, sender, address, text and that time are the
 * message's id (the same time is the same message, however late the resend); without it, the same
 * sender, address and text within SMPP_RESEND_WINDOW_MS of the first are a resend.
 */
export function receiveSmppInbound(deps: AppDeps, companyId: number, message: InboundSms) {
  const arrivedAt = new Date();
  const key = createHash('sha256')
    .update(
      JSON.stringify([message.from, message.to, message.text, message.receivedAt?.toISOString() ?? null]),
    )
    .digest('base64url');
  return inTenantTransaction(deps.db, companyScope(companyId), async (trx) => {
    const status = await repo.findCompanyStatus(trx, companyId);
    if (status === null) return null;
    let id = `smpp:${key}`;
    if (!message.receivedAt) {
      const since = new Date(arrivedAt.getTime() - SMPP_RESEND_WINDOW_MS);
      if (await repo.lockAndFindRecentInbound(trx, companyId, `${id}@`, since))
        return { outcome: 'duplicate' };
      id = `${id}@${arrivedAt.toISOString()}`;
    }
    const body = {
      from: message.from,
      to: message.to,
      text: message.text,
      id,
      ...(message.receivedAt && { date: message.receivedAt.toISOString() }),
    };
    const audit = { user: null, ip: null, userAgent: 'SMPP deliver_sm' };
    return handleSubscriptionCallback(deps, trx, companyId, body, audit, status === 'active');
  });
}
