import type { Config } from '../config.ts';
import { StartupError } from '../lib/startup-error.ts';
import { connectDatabase, type DatabaseHandle } from './database.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from './embedded.ts';
import { runMigrations } from './migrate.ts';

const EMBEDDED_DATABASE = 'sms_console';

export type OpenedDatabase = DatabaseHandle & {
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
  const handle = connectDatabase(url, config.databasePoolSize);
  try {
    await handle.pool.query('select 1');
  } catch (error) {
    await handle.close();
    await embedded?.stop();
    throw new StartupError(
      `Cannot reach the database at ${describeUrl(url)}: ${(error as Error).message}. Check DATABASE_URL and that the server is running.`,
    );
  }
  try {
    const migrationsApplied = await runMigrations(handle.pool);
    return { ...handle, embedded, migrationsApplied };
  } catch (error) {
    await handle.close();
    await embedded?.stop();
    throw new StartupError((error as Error).message);
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
