import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZIdParam } from '@sms/contracts/common/envelope';
import { ZDeliveryReportsQuery, ZDeliveryReportsResponse } from '@sms/contracts/messages/delivery-reports';
import { ZJobStatusResponse } from '@sms/contracts/messages/job-status';
import { ZListMessagesQuery, ZListMessagesResponse } from '@sms/contracts/messages/list-messages';
import { ZMessageDetailsQuery, ZMessageDetailsResponse } from '@sms/contracts/messages/message-details';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import {
  getJobStatus,
  getMessageDetails,
  listDeliveryReports,
  listMessages,
} from './message-logs.service.ts';

const tags = ['messages'];

/** The Message Logs' reads (spec section 7); viewers are refused (section 6). */
export function messageLogsRoutes(app: ApiInstance, deps: AppDeps) {
  const apiKeyScopes = ['messages:read'] as const;
  const readers = guard(deps, ROUTE_ROLES.messages, { apiKeyScopes });
  // Each read finds its message in its own statement (404 when out of scope): no lookup before it.
  const oneMessage = guard(deps, ROUTE_ROLES.messages, {
    idOf: 'messages',
    idFoundByHandler: true,
    apiKeyScopes,
  });

  app.get(
    '/messages',
    {
      preHandler: readers,
      schema: {
        tags,
        description:
          'Messages, newest first: the caller’s company (system_admin: every company, or one with companyId). ' +
          'search matches the content or the msisdn anywhere, ignoring case. chip narrows to a quick-filter ' +
          'group (scheduled; pending = pending, queued, processing; sent = sent, delivered). counts gives each ' +
          'chip’s count over the same company. Counts and totals are exact, except a search’s total, which ' +
          'stops at the next thousand past the page asked for, at most 10,000 (then exact: false, totalItems ' +
          'is a floor: page 1 says 1,000 or more, page 50 of 20 up to 2,000).',
        querystring: ZListMessagesQuery,
        response: { 200: ZListMessagesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listMessages(deps, contextOf(request), request.query),
    }),
  );

  app.get(
    '/messages/:id/details',
    {
      preHandler: oneMessage,
      schema: {
        tags,
        description:
          'One message with its queue job, its delivery summary and a page of its recipients (page, limit, status as on /delivery-reports).',
        params: ZIdParam,
        querystring: ZMessageDetailsQuery,
        response: { 200: ZMessageDetailsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getMessageDetails(deps, contextOf(request), request.params.id, request.query),
    }),
  );

  app.get(
    '/messages/:id/delivery-reports',
    {
      preHandler: oneMessage,
      schema: {
        tags,
        description: 'A page of a message’s recipients with their delivery status, optionally of one status.',
        params: ZIdParam,
        querystring: ZDeliveryReportsQuery,
        response: { 200: ZDeliveryReportsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listDeliveryReports(deps, contextOf(request), request.params.id, request.query),
    }),
  );

  app.get(
    '/messages/:id/job-status',
    {
      preHandler: oneMessage,
      schema: {
        tags,
        description:
          'The message’s send job in the queue view’s states (waiting, active, completed, failed, delayed); null for a message that never had one.',
        params: ZIdParam,
        response: { 200: ZJobStatusResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getJobStatus(deps, contextOf(request), request.params.id),
    }),
  );
}
