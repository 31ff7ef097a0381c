import { API_KEY_SCOPES } from '@sms/contracts/api-keys/api-key';
import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZIdParam } from '@sms/contracts/common/envelope';
import { ZCreateServiceRequest, ZCreateServiceResponse } from '@sms/contracts/services/create-service';
import { ZDeleteServiceQuery, ZDeleteServiceResponse } from '@sms/contracts/services/delete-service';
import { ZGetServiceResponse } from '@sms/contracts/services/get-service';
import {
  ZListAdminServicesQuery,
  ZListAdminServicesResponse,
} from '@sms/contracts/services/list-admin-services';
import { ZListServicesQuery, ZListServicesResponse } from '@sms/contracts/services/list-services';
import { SERVICE_MESSAGES } from '@sms/contracts/services/service';
import { ZUpdateServiceRequest, ZUpdateServiceResponse } from '@sms/contracts/services/update-service';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { createService, deleteService, getService, listServices, updateService } from './services.service.ts';

const tags = ['services'];
/** Who may create, edit and delete services (spec section 6: content managers view only). */
const SERVICE_EDITORS = ['system_admin', 'company_admin'] as const;

export function servicesRoutes(app: ApiInstance, deps: AppDeps) {
  // Viewers are refused; content managers read, and get the spec's own words when they try to write.
  // Every API key reads services: sending and subscribing name them.
  const readers = guard(deps, ROUTE_ROLES.services, { apiKeyScopes: API_KEY_SCOPES });

  app.get(
    '/services',
    {
      preHandler: readers,
      schema: {
        tags,
        description:
          "The company's services (system_admin: every company's, or one with companyId), each with its live subscriber and message counts.",
        querystring: ZListServicesQuery,
        response: { 200: ZListServicesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listServices(deps, contextOf(request), request.query),
    }),
  );

  app.get(
    '/admin/services',
    {
      preHandler: guard(deps, 'system_admin'),
      schema: {
        tags,
        description: 'Every company’s services (system_admin only).',
        querystring: ZListAdminServicesQuery,
        response: { 200: ZListAdminServicesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listServices(deps, contextOf(request), request.query),
    }),
  );

  app.get(
    '/services/:id',
    {
      preHandler: guard(deps, ROUTE_ROLES.services, { idOf: 'services', apiKeyScopes: API_KEY_SCOPES }),
      schema: { tags, params: ZIdParam, response: { 200: ZGetServiceResponse } },
    },
    async (request) => ({
      success: true as const,
      data: { service: await getService(deps, contextOf(request), request.params.id) },
    }),
  );

  app.post(
    '/services',
    {
      preHandler: guard(deps, SERVICE_EDITORS, {
        refusals: { content_manager: SERVICE_MESSAGES.contentManagerEdit },
      }),
      schema: {
        tags,
        description:
          'Creates a service. system_admin must give companyId; for other roles it is ignored. ' +
          'The short code is stored upper case; a short code + keyword pair is unique on the platform (409).',
        body: ZCreateServiceRequest,
        response: { 201: ZCreateServiceResponse },
      },
    },
    async (request, reply) => {
      const service = await createService(deps, contextOf(request), request.body);
      return reply.code(201).send({ success: true as const, data: { service } });
    },
  );

  app.put(
    '/services/:id',
    {
      preHandler: guard(deps, SERVICE_EDITORS, {
        idOf: 'services',
        refusals: { content_manager: SERVICE_MESSAGES.contentManagerEdit },
      }),
      schema: {
        tags,
        description:
          'Replaces a service’s fields. Only system_admin may move it to another company, and only while it has no subscriptions.',
        params: ZIdParam,
        body: ZUpdateServiceRequest,
        response: { 200: ZUpdateServiceResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { service: await updateService(deps, contextOf(request), request.params.id, request.body) },
    }),
  );

  app.delete(
    '/services/:id',
    {
      preHandler: guard(deps, SERVICE_EDITORS, {
        idOf: 'services',
        refusals: { content_manager: SERVICE_MESSAGES.contentManagerDelete },
      }),
      schema: {
        tags,
        description:
          'Deletes a service. While it has active subscribers or message history the answer is 409 ' +
          'with the counts, unless force=true: then its subscriptions end (a subscriber left with no ' +
          'active subscription becomes unsubscribed; the subscriber record stays) and its messages ' +
          'stay in the history without a service. A service with neither is deleted at once.',
        params: ZIdParam,
        querystring: ZDeleteServiceQuery,
        response: { 200: ZDeleteServiceResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deleteService(deps, contextOf(request), request.params.id, request.query.force),
    }),
  );
}
