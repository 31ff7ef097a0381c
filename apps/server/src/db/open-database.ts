import type { Config } from '../config.ts';
import { StartupError } from '../lib/startup-error.ts';
import { APP_ROLE, connectDatabase, type DatabaseHandle } from './database.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from './embedded.ts';
import { runMigrations } from './migrate.ts';

const EMBEDDED_DATABASE = 'sms_console';
// The owner's pool only migrates and seeds at start-up: two connections are plenty.
const OWNER_POOL_SIZE = 2;

/**
 * Two handles on one database. `db`/`pool` are the application's: every connection acts as
 * sms_app, so row-level security holds for it. `owner` is the connecting user itself, the schema's
 * owner: migrations and the demo seed run there, nothing on a request path does.
 */
export type OpenedDatabase = DatabaseHandle & {
  owner: DatabaseHandle;
  embedded: EmbeddedServer | undefined;
  migrationsApplied: string[];
};

/** DATABASE_URL, or the embedded server in DATA_DIR; then migrations. Failures become one clear line. */
export async function openDatabase(config: Config, log: (line: string) => void): Promise<OpenedDatabase> {
  let embedded: EmbeddedServer | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(config.dataDir, log);
    url = embedded.connectionString(EMBEDDED_DATABASE);
    await createDatabaseIfMissing(embedded.connectionString('postgres'), EMBEDDED_DATABASE);
  }
  const owner = connectDatabase(url, OWNER_POOL_SIZE);
  const fail = async (message: string): Promise<never> => {
    await owner.close();
    await embedded?.stop();
    throw new StartupError(message);
  };
  try {
    await owner.pool.query('select 1');
  } catch (error) {
    return fail(
      `Cannot reach the database at ${describeUrl(url)}: ${(error as Error).message}. Check DATABASE_URL and that the server is running.`,
    );
  }
  let migrationsApplied: string[];
  try {
    migrationsApplied = await runMigrations(owner.pool);
  } catch (error) {
    return fail((error as Error).message);
  }
  // Opened after the migrations, which create the role it acts as.
  const app = connectDatabase(url, config.databasePoolSize, {
    role: APP_ROLE,
    readLanes: config.databaseReadLanes,
  });
  try {
    await assertRowSecurityHolds(app);
  } catch (error) {
    await app.close();
    return fail((error as Error).message);
  }
  return {
    ...app,
    close: async () => {
      await app.close();
      await owner.close();
    },
    owner,
    embedded,
    migrationsApplied,
  };
}

/**
 * Row-level security does not apply to superusers, to BYPASSRLS roles or (without FORCE) to a
 * table's owner. The application's connections must be none of these, or every policy is moot.
 */
export async function assertRowSecurityHolds(handle: DatabaseHandle) {
  let role: { name: string; superuser: boolean; bypass: boolean } | undefined;
  try {
    const { rows } = await handle.pool.query(
      `select current_user as name, r.rolsuper as superuser, r.rolbypassrls as bypass
         from pg_roles r where r.rolname = current_user`,
    );
    role = rows[0];
  } catch (error) {
    throw new Error(
      `The database user cannot act as the application role ${APP_ROLE} (${(error as Error).message}). ` +
        `Connect as the user that ran the migrations (migration 0005 grants it ${APP_ROLE}), or run \`grant ${APP_ROLE} to <user>\`.`,
    );
  }
  if (!role || role.name !== APP_ROLE || role.superuser || role.bypass) {
    throw new Error(
      `The application's connections act as ${role?.name ?? 'an unknown role'}${role?.superuser ? ' (a superuser)' : ''}` +
        `${role?.bypass ? ' (BYPASSRLS)' : ''}, not as ${APP_ROLE}: row-level security would not hold. ` +
        `Remove any role setting from DATABASE_URL, and make sure ${APP_ROLE} is neither a superuser nor BYPASSRLS.`,
    );
  }
}

async function createDatabaseIfMissing(adminUrl: string, name: string) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** host:port/database, without the password. */
function describeUrl(url: string) {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL (unparseable)';
  }
}
