import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZIdParam } from '@sms/contracts/common/envelope';
import {
  TEMPLATE_MESSAGES,
  ZCreateTemplateRequest,
  ZDeleteTemplateResponse,
  ZListTemplatesQuery,
  ZListTemplatesResponse,
  ZTemplateResponse,
  ZUpdateTemplateRequest,
} from '@sms/contracts/templates/template';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { createTemplate, deleteTemplate, listTemplates, updateTemplate } from './templates.service.ts';

const tags = ['templates'];

const GRAMMAR =
  ' Placeholders name a subscriber field: {{first_name}}, or with a fallback for subscribers without one, ' +
  '{{first_name|friend}}; at most 160 characters.';

/** Saved texts with merge fields: read by whoever sends or views messaging, changed by those who send. */
export function templatesRoutes(app: ApiInstance, deps: AppDeps) {
  const refusals = { content_manager: TEMPLATE_MESSAGES.contentManagerEdit };
  const readers = guard(deps, ROUTE_ROLES.messages, { apiKeyScopes: ['messages:read'] });
  const editors = guard(deps, ['system_admin', 'company_admin'], {
    refusals,
    apiKeyScopes: ['messages:send'],
  });
  const oneTemplate = guard(deps, ['system_admin', 'company_admin'], {
    idOf: 'message_templates',
    refusals,
    apiKeyScopes: ['messages:send'],
  });

  app.get(
    '/templates',
    {
      preHandler: readers,
      schema: {
        tags,
        description:
          "The company's message templates by name, each with the merge fields it uses (a system_admin's: every company's, or companyId's).",
        querystring: ZListTemplatesQuery,
        response: { 200: ZListTemplatesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { templates: await listTemplates(deps, contextOf(request), request.query.companyId) },
    }),
  );

  app.post(
    '/templates',
    {
      preHandler: editors,
      schema: {
        tags,
        description: `Saves a template: a name unique in the company (any case) and a text.${GRAMMAR} A system_admin names companyId.`,
        body: ZCreateTemplateRequest,
        response: { 201: ZTemplateResponse },
      },
    },
    async (request, reply) => {
      const template = await createTemplate(deps, contextOf(request), request.body);
      return reply.code(201).send({ success: true as const, data: { template } });
    },
  );

  app.put(
    '/templates/:id',
    {
      preHandler: oneTemplate,
      schema: {
        tags,
        description: `Changes a template's name and text.${GRAMMAR} Messages started from it keep their own text.`,
        params: ZIdParam,
        body: ZUpdateTemplateRequest,
        response: { 200: ZTemplateResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { template: await updateTemplate(deps, contextOf(request), request.params.id, request.body) },
    }),
  );

  app.delete(
    '/templates/:id',
    {
      preHandler: oneTemplate,
      schema: {
        tags,
        description: 'Deletes a template. Messages started from it keep their own text.',
        params: ZIdParam,
        response: { 200: ZDeleteTemplateResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await deleteTemplate(deps, contextOf(request), request.params.id),
    }),
  );
}
