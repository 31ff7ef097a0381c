import { ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { ZGlobalSearchQuery, ZGlobalSearchResponse } from '@sms/contracts/search/global-search';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { searchEverything } from './search.service.ts';

export function searchRoutes(app: ApiInstance, deps: AppDeps) {
  app.get(
    '/search',
    {
      preHandler: guard(deps, ROUTE_ROLES.dashboard),
      schema: {
        tags: ['search'],
        description:
          "The top bar's search: up to 5 services (name, short code, keyword), subscribers (any part of the number, " +
          'when the text reads as one; its last digits too), messages (content, 3 characters or more) and, for a ' +
          'system_admin, companies (name) and users (name or e-mail), of the kinds ' +
          "the caller's role may open (kinds), within the caller's company (system_admin: every company).",
        querystring: ZGlobalSearchQuery,
        response: { 200: ZGlobalSearchResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await searchEverything(deps, contextOf(request), request.query.q),
    }),
  );
}
