import { ZChangeCompanyStatusResponse } from '@sms/contracts/admin/change-company-status';
import { ZCreateCompanyRequest, ZCreateCompanyResponse } from '@sms/contracts/admin/create-company';
import { ZDeleteCompanyQuery, ZDeleteCompanyResponse } from '@sms/contracts/admin/delete-company';
import { ZListCompaniesQuery, ZListCompaniesResponse } from '@sms/contracts/admin/list-companies';
import { ZUpdateCompanyRequest, ZUpdateCompanyResponse } from '@sms/contracts/admin/update-company';
import { ZIdParam } from '@sms/contracts/common/envelope';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import {
  changeCompanyStatus,
  createCompany,
  deleteCompany,
  listCompanies,
  updateCompany,
} from './companies.service.ts';

const tags = ['admin'];

/** Company administration: platform staff (system_admin) only. */
export function companiesRoutes(app: ApiInstance, deps: AppDeps) {
  const preHandler = guard(deps, 'system_admin');
  const oneCompany = guard(deps, 'system_admin', { idOf: 'companies' });

  app.get(
    '/admin/companies',
    {
      preHandler,
      schema: {
        tags,
        description: 'Companies, 10 a page by default, with real user/service/subscriber counts and stats.',
        querystring: ZListCompaniesQuery,
        response: { 200: ZListCompaniesResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listCompanies(deps, contextOf(request), request.query),
    }),
  );

  app.post(
    '/admin/companies',
    {
      preHandler,
      schema: {
        tags,
        description:
          "Creates a company and its callback URLs. `provider` picks the SMS provider and its settings (default: the simulator); apiKey/apiSecret are Africa's Talking's key (stored encrypted) and username.",
        body: ZCreateCompanyRequest,
        response: { 201: ZCreateCompanyResponse },
      },
    },
    async (request, reply) => {
      const company = await createCompany(deps, contextOf(request), request.body);
      return reply.code(201).send({ success: true as const, data: { company } });
    },
  );

  app.put(
    '/admin/companies/:id',
    {
      preHandler: oneCompany,
      schema: {
        tags,
        description:
          'Saves the company form. A secret (apiKey, provider.apiKey, provider.password) that is omitted, blank or the mask GET returned keeps the stored one; null clears it. Without `provider` the provider is unchanged.',
        params: ZIdParam,
        body: ZUpdateCompanyRequest,
        response: { 200: ZUpdateCompanyResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { company: await updateCompany(deps, contextOf(request), request.params.id, request.body) },
    }),
  );

  for (const change of ['activate', 'suspend'] as const) {
    app.put(
      `/admin/companies/:id/${change}`,
      {
        preHandler: oneCompany,
        schema: {
          tags,
          description:
            change === 'activate'
              ? 'Approves a pending company (409 for any other status).'
              : 'Suspends an active company (409 for any other status); its users are refused at once.',
          params: ZIdParam,
          response: { 200: ZChangeCompanyStatusResponse },
        },
      },
      async (request) => ({
        success: true as const,
        data: { company: await changeCompanyStatus(deps, contextOf(request), request.params.id, change) },
      }),
    );
  }

  app.delete(
    '/admin/companies/:id',
    {
      preHandler: oneCompany,
      schema: {
        tags,
        description:
          'Deletes a company. If it still has users, services, subscribers or messages the answer is 409 ' +
          'with what it holds, unless the request confirms the cascade with ?cascade=true: then the ' +
          'company and all of its data are deleted together.',
        params: ZIdParam,
        querystring: ZDeleteCompanyQuery,
        response: { 200: ZDeleteCompanyResponse },
      },
    },
    async (request) => {
      const removed = await deleteCompany(deps, contextOf(request), request.params.id, request.query.cascade);
      return { success: true as const, data: { deleted: true as const, removed } };
    },
  );
}
