import { ZCallbackUrlsResponse } from '@sms/contracts/callbacks/callback-urls';
import {
  ZValidateCallbackUrlParams,
  ZValidateCallbackUrlResponse,
} from '@sms/contracts/callbacks/validate-callback-url';
import { ZIdParam } from '@sms/contracts/common/envelope';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard, publicRoute } from '../../plugins/guards.ts';
import {
  getCallbackUrls,
  ownCompanyId,
  regenerateCallbackUrls,
  validateCallbackUrl,
} from './callbacks.service.ts';

const tags = ['callbacks'];

/**
 * The callback URLs hold the secrets that let a caller post subscriptions and delivery reports
 * for a company, so only who manages webhooks sees them: a company_admin (their own company,
 * through my-company or by id) and platform staff (any company, by id).
 */
export function callbacksRoutes(app: ApiInstance, deps: AppDeps) {
  const ownCompany = guard(deps, 'company_admin');
  const byId = guard(deps, ['system_admin', 'company_admin'], { idOf: 'companies' });

  app.get(
    '/callbacks/my-company',
    {
      preHandler: ownCompany,
      schema: {
        tags,
        description: "The signed-in company admin's callback URLs.",
        response: { 200: ZCallbackUrlsResponse },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return { success: true as const, data: await getCallbackUrls(deps, ctx, ownCompanyId(ctx)) };
    },
  );

  app.post(
    '/callbacks/my-company/regenerate',
    {
      preHandler: ownCompany,
      schema: {
        tags,
        description: 'New callback URLs for your company; the old ones stop working at once.',
        response: { 200: ZCallbackUrlsResponse },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return { success: true as const, data: await regenerateCallbackUrls(deps, ctx, ownCompanyId(ctx)) };
    },
  );

  app.get(
    '/callbacks/company/:id',
    {
      preHandler: byId,
      schema: {
        tags,
        description: "A company's callback URLs (system_admin: any company; company_admin: their own).",
        params: ZIdParam,
        response: { 200: ZCallbackUrlsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getCallbackUrls(deps, contextOf(request), request.params.id),
    }),
  );

  app.post(
    '/callbacks/company/:id/regenerate',
    {
      preHandler: byId,
      schema: {
        tags,
        description: 'New callback URLs for a company; the old ones stop working at once.',
        params: ZIdParam,
        response: { 200: ZCallbackUrlsResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await regenerateCallbackUrls(deps, contextOf(request), request.params.id),
    }),
  );

  app.get(
    '/callbacks/validate/:type/:companyId/:token',
    {
      config: publicRoute(
        'a provider set-up checks a URL whose token is the proof; it reveals only valid or not',
      ),
      schema: {
        tags,
        security: [],
        description:
          'Whether {PUBLIC_URL}/api/v1/callbacks/{type}/{companyId}/{token} is a current callback URL. ' +
          'No sign-in needed (a provider set-up can check it); an unknown company answers exactly like a wrong token.',
        params: ZValidateCallbackUrlParams,
        response: { 200: ZValidateCallbackUrlResponse },
      },
    },
    async (request) => {
      const { type, companyId, token } = request.params;
      return {
        success: true as const,
        data: { valid: await validateCallbackUrl(deps, type, companyId, token) },
      };
    },
  );
}
