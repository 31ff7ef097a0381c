import { successEnvelope } from '@sms/contracts/common/envelope';
import { z } from 'zod';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { describeCallbackForLog } from '../../lib/log-redaction.ts';
import { publicRoute } from '../../plugins/guards.ts';
import { callbackAdmissionOf } from './callback-admission.ts';
import { receiveSubscriptionCallback } from './subscription-callback.service.ts';

const ZCallbackParams = z.object({ companyId: z.string().max(20), token: z.string().max(300) });

const ZCallbackResponse = successEnvelope(
  z.object({
    received: z.literal(true),
    outcome: z.enum([
      'subscribed',
      'unsubscribed',
      'unchanged',
      'stored',
      'duplicate',
      'unknown_service',
      'refused_by_limit',
      'company_not_active',
    ]),
    serviceIds: z.array(z.number().int()).optional(),
    messageId: z.number().int().optional(),
  }),
);

/**
 * What SMS providers post back: no bearer token, the secret in the URL is the proof. The
 * delivery-report receiver (type dlr) belongs here too.
 */
export function providerCallbacksRoutes(app: ApiInstance, deps: AppDeps) {
  app.post(
    '/callbacks/subscription/:companyId/:token',
    {
      config: publicRoute("provider callback: the company's secret token in the URL is the proof"),
      // The token first, then the count: its company's for a right one, its address's for a wrong one.
      ...callbackAdmissionOf(deps).routeHooks('subscription'),
      schema: {
        tags: ['provider callbacks'],
        security: [],
        description:
          "Africa's Talking premium-subscription notifications (phoneNumber, shortCode, keyword, updateType addition|deletion), " +
          'bulk opt-outs (senderId, phoneNumber) and incoming messages (from, to, text, id, ...), form-encoded or JSON. ' +
          'An incoming STOP (or STOP <keyword>) unsubscribes the sender; a service keyword texted to its short code ' +
          '(alone, or with JOIN, START, SUBSCRIBE or YES) subscribes the sender to that active service. ' +
          'Repeats change nothing. A service that is not active is treated as unknown (nothing about it changes). ' +
          'An opt-in that would pass the company’s subscriber limit subscribes no one (outcome refused_by_limit, ' +
          'audited); so does any opt-in while the company is not active (outcome company_not_active), whose ' +
          'opt-outs and incoming messages are still handled. An incoming message is stored all the same. ' +
          'A wrong URL is a 404.',
        params: ZCallbackParams,
        response: { 200: ZCallbackResponse },
      },
    },
    async (request) => {
      const audit = { user: null, ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
      const { companyId, result } = await receiveSubscriptionCallback(
        deps,
        request.params,
        request.body,
        audit,
      );
      if (result.outcome === 'unknown_service')
        request.log.warn(
          // Field names, short code and keyword only: never the number or a message text.
          { companyId, ...describeCallbackForLog(request.body) },
          'subscription notification for an unknown service',
        );
      if (result.outcome === 'refused_by_limit')
        request.log.warn(
          { companyId, serviceIds: result.serviceIds },
          'opt-in refused: subscriber limit reached',
        );
      return { success: true as const, data: { received: true as const, ...result } };
    },
  );
}
