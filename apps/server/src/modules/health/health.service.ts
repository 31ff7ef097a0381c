import type { AppDeps } from '../../app-deps.ts';
import { databaseUnavailable } from '../../plugins/database-unavailable.ts';
import { pingDatabase } from './health.repository.ts';

/** Whether the API and its database answer: the database's failure is the API's 503. */
export async function checkHealth(deps: AppDeps) {
  try {
    await pingDatabase(deps.db);
  } catch (error) {
    throw databaseUnavailable(error);
  }
  return { status: 'ok' as const, database: 'ok' as const };
}
