import {
  type TDeliveryReportCallbackResponse,
  ZDeliveryReportCallbackResponse,
} from '@sms/contracts/callbacks/delivery-report-callback';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { publicRoute } from '../../plugins/guards.ts';
import { callbackAdmissionOf } from './callback-admission.ts';
import { receiveDeliveryReport } from './dlr-callback.service.ts';

const ZCallbackParams = z.object({ companyId: z.string().max(20), token: z.string().max(300) });

/**
 * The answer (one report accepted), written once through the response schema: the busiest route
 * sends a constant string instead of checking and serialising an object per report.
 */
export const ONE_ACCEPTED = JSON.stringify(
  ZDeliveryReportCallbackResponse.parse({ success: true, data: { accepted: 1 } }),
);

/** Levels that log every request ("incoming request", "request completed"). */
const PER_REQUEST_LEVELS = new Set(['info', 'debug', 'trace']);
const QUIET_LOGGERS = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>();

/**
 * The route's request logger. A provider posts reports by the thousand a second: at info each one
 * would write two access lines, and a child logger per request (with its request id and the
 * redaction set up) is a few microseconds of the busiest route. So below debug every report shares
 * one child logger of the route, at warn or quieter (warnings and errors are still written, without
 * a request id); at debug and trace each request gets its own child as on every other route.
 */
function dlrRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: { level?: string },
) {
  if (logger.level === 'debug' || logger.level === 'trace') return logger.child(bindings, options);
  let quiet = QUIET_LOGGERS.get(logger);
  if (!quiet) {
    quiet = logger.child(
      { route: 'dlr callback' },
      { level: PER_REQUEST_LEVELS.has(logger.level) ? 'warn' : logger.level },
    );
    QUIET_LOGGERS.set(logger, quiet);
  }
  return quiet;
}

/**
 * The delivery-report callback: POST {PUBLIC_URL}/api/v1/callbacks/dlr/{companyId}/{token}. The
 * URL is checked like every provider callback (the company's current dlr token, whatever the
 * company's status: a suspended one's recipients still settle; anything else is the same 404), inside the transaction that stores the report with others in the
 * delivery-report inbox (group commit: one transaction per company per batch, not per report), and
 * the answer comes once that has committed. The worker applies the inbox in large batches
 * (messaging/delivery-report-applier.ts).
 */
export function dlrCallbackRoutes(app: ApiInstance, deps: AppDeps) {
  app.post(
    '/callbacks/dlr/:companyId/:token',
    {
      config: publicRoute("provider callback: the company's secret token in the URL is the proof"),
      // The token first, then the count: its company's for a right one, its address's for a wrong one.
      ...callbackAdmissionOf(deps).routeHooks('dlr'),
      // A provider's server reads this JSON, never a browser: the browser-protection headers (a
      // dozen, about 700 bytes on every answer) only cost time on the busiest route.
      helmet: false,
      childLoggerFactory: dlrRequestLogger,
      schema: {
        tags: ['provider callbacks'],
        security: [],
        description:
          "Delivery reports, as Africa's Talking posts them (form-encoded or JSON): id (the provider's message id), " +
          'status (Sent, Submitted, Buffered, Success, Rejected, Failed, AbsentSubscriber, Expired), phoneNumber, ' +
          'failureReason. The answer (accepted) comes once the report is stored; it is applied to its recipient ' +
          'shortly after: a recipient only moves forward (a final status is never replaced); repeats and unknown ' +
          'ids change nothing. An unreadable report is a 400 and a wrong URL a 404; neither stores anything.',
        params: ZCallbackParams,
        response: { 200: ZDeliveryReportCallbackResponse },
      },
    },
    async (request, reply) => {
      await receiveDeliveryReport(deps, request.params, request.body);
      // Already serialised: a string with a JSON content type is sent as it is.
      return reply
        .type('application/json; charset=utf-8')
        .send(ONE_ACCEPTED as unknown as TDeliveryReportCallbackResponse);
    },
  );
}
