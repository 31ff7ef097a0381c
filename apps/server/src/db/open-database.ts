import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';
import { StartupError } from '../lib/startup-error.ts';
import { appRoleUrl, assertRowSecurityHolds, letAppRoleLogIn } from './app-role.ts';
import { APP_ROLE, connectDatabase, type DatabaseHandle, NO_STATEMENT_TIMEOUTS } from './database.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from './embedded.ts';
import { runMigrations } from './migrate.ts';

const EMBEDDED_DATABASE = 'sms_console';
// The owner's pool only migrates and seeds at start-up: two connections are plenty.
const OWNER_POOL_SIZE = 2;

/**
 * The application's handles, logged in as sms_app (row-level security holds), and `owner`, the
 * schema's owner: migrations and the demo seed run there, nothing on a request path does.
 */
export type OpenedDatabase = DatabaseHandle & {
  owner: DatabaseHandle;
  embedded: EmbeddedServer | undefined;
  migrationsApplied: string[];
};

/** DATABASE_URL and DATABASE_APP_URL, or the embedded server; then migrations and the login. Failures become one clear line. */
export async function openDatabase(config: Config, log: (line: string) => void): Promise<OpenedDatabase> {
  const { url, appUrl, embedded } = await locateDatabase(config, log);
  const owner = connectDatabase(url, OWNER_POOL_SIZE, { statementTimeouts: NO_STATEMENT_TIMEOUTS });
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
    await letAppRoleLogIn(owner.pool, appUrl);
  } catch (error) {
    return fail((error as Error).message);
  }
  // Opened after the migrations, which create the role it logs in as.
  const app = connectDatabase(appUrl, config.databasePoolSize, {
    statementTimeouts: config.statementTimeouts,
    readUrl: config.databaseReadUrl,
    listenUrl: config.databaseListenUrl,
  });
  try {
    await assertRowSecurityHolds(app);
  } catch (error) {
    await app.close();
    // Only the check used the pool, not Kysely, whose destroy() therefore left it open.
    await app.pool.end().catch(() => {});
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

/** The owner's URL and the application's: from the environment, or the embedded server's. */
async function locateDatabase(config: Config, log: (line: string) => void) {
  const { databaseUrl: url, databaseAppUrl: appUrl } = config;
  if (url && appUrl) return { url, appUrl, embedded: undefined };
  if (url) {
    throw new StartupError(
      `DATABASE_APP_URL is required with DATABASE_URL: the application's connections log in as ${APP_ROLE}, ` +
        `which row-level security holds (postgres://${APP_ROLE}:<a password you choose>@<host>:5432/<database>; ` +
        `the server gives ${APP_ROLE} that password at start-up).`,
    );
  }
  if (appUrl)
    throw new StartupError('DATABASE_APP_URL is set without DATABASE_URL: set both, or neither (embedded).');
  // E2E_FRESH_DATA wipes the data folder at every start (main.ts): nothing there needs to survive a crash.
  const embedded = await startEmbeddedPostgres(config.dataDir, log, { durable: !config.freshData });
  await createDatabaseIfMissing(embedded.connectionString('postgres'), EMBEDDED_DATABASE);
  const embeddedUrl = embedded.connectionString(EMBEDDED_DATABASE);
  // Only this process connects as sms_app to its own embedded server: a new password at each start.
  return {
    url: embeddedUrl,
    appUrl: appRoleUrl(embeddedUrl, randomBytes(24).toString('base64url')),
    embedded,
  };
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
