import type { AppDeps } from '../../app-deps.ts';
import { badRequest } from '../../errors.ts';
import { parseAfricasTalkingDeliveryReport } from '../../messaging/providers/africastalking-dlr.ts';
import { type CallbackUrlParams, inCallbackTransaction } from './callback-transaction.ts';

/**
 * A delivery report posted on its URL, handed to the engine's intake, which checks the URL's token
 * in its batch's own transaction (the same rule as every callback) and resolves once the report is
 * stored. An unreadable report is a 400 only on a right URL: a wrong one is a 404 whatever it carries.
 */
export async function receiveDeliveryReport(deps: AppDeps, params: CallbackUrlParams, body: unknown) {
  const update = parseAfricasTalkingDeliveryReport(body);
  if (!update) {
    await inCallbackTransaction(deps, 'dlr', params, async () => {});
    throw badRequest('Unrecognised delivery report: expected an id and a known status', [
      'body: id and status (Sent, Submitted, Buffered, Success, Rejected, Failed, AbsentSubscriber, Expired) are required',
    ]);
  }
  const companyId = /^\d{1,15}$/.test(params.companyId) ? Number(params.companyId) : 0;
  await deps.messaging.deliveryReports.submit(companyId, update, params.token);
}
