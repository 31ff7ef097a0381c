import { ZCreateApiKeyRequest, ZCreateApiKeyResponse } from '@sms/contracts/api-keys/create-api-key';
import { ZListApiKeysResponse } from '@sms/contracts/api-keys/list-api-keys';
import { ZRevokeApiKeyResponse } from '@sms/contracts/api-keys/revoke-api-key';
import { ZIdParam } from '@sms/contracts/common/envelope';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.ts';

const tags = ['api-keys'];

/** A company admin's own company's keys; no API key can call these (the guard names no scope). */
export function apiKeysRoutes(app: ApiInstance, deps: AppDeps) {
  const admins = guard(deps, 'company_admin');
  const oneKey = guard(deps, 'company_admin', { idOf: 'api_keys' });

  app.get(
    '/api-keys',
    {
      preHandler: admins,
      schema: {
        tags,
        description: "Your company's API keys (never their secrets), live ones first.",
        response: { 200: ZListApiKeysResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { apiKeys: await listApiKeys(deps, contextOf(request)) },
    }),
  );

  app.post(
    '/api-keys',
    {
      preHandler: admins,
      schema: {
        tags,
        description:
          'A new API key with a name and scopes. The answer holds the key itself, the only time it is shown.',
        body: ZCreateApiKeyRequest,
        response: { 201: ZCreateApiKeyResponse },
      },
    },
    async (request, reply) => {
      const data = await createApiKey(deps, contextOf(request), request.body);
      return reply.code(201).send({ success: true as const, data });
    },
  );

  app.post(
    '/api-keys/:id/revoke',
    {
      preHandler: oneKey,
      schema: {
        tags,
        description: 'Revokes a key: it is refused from the next request on.',
        params: ZIdParam,
        response: { 200: ZRevokeApiKeyResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { apiKey: await revokeApiKey(deps, contextOf(request), request.params.id) },
    }),
  );
}
