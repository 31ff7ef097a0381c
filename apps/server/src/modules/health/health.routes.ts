import { successEnvelope } from '@sms/contracts/common/envelope';
import { sql } from 'kysely';
import { z } from 'zod';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { databaseUnavailable } from '../../db/database-unavailable.ts';
import { publicRoute } from '../../plugins/guards.ts';

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
    async () => {
      try {
        await sql`select 1`.execute(deps.db);
      } catch (error) {
        throw databaseUnavailable(error);
      }
      return { success: true as const, data: { status: 'ok' as const, database: 'ok' as const } };
    },
  );
}
