import { successEnvelope } from '@sms/contracts/common/envelope';
import { z } from 'zod';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { publicRoute } from '../../plugins/guards.ts';
import { checkHealth } from './health.service.ts';

export function healthRoutes(app: ApiInstance, deps: AppDeps) {
  app.get(
    '/health',
    {
      config: publicRoute('liveness probe: says only whether the API and database answer'),
      schema: {
        tags: ['health'],
        security: [],
        response: { 200: successEnvelope(z.object({ status: z.literal('ok'), database: z.literal('ok') })) },
      },
    },
    async () => ({ success: true as const, data: await checkHealth(deps) }),
  );
}
