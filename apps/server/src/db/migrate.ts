import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const FUNCTIONS_DIR = new URL('./functions/', import.meta.url);
// Any constant works; it only has to be the same for every process that migrates this database.
const MIGRATION_LOCK_KEY = 7_201_554_913;

/**
 * Brings the database to the current schema, one process at a time: the pending migrations, each
 * once, then every file of db/functions/ (current definitions, re-applied idempotently) whose text
 * changed; unchanged ones are skipped, so a start does not lock the busy tables their triggers are on.
 */
export async function runMigrations(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`);
    await client.query(`create table if not exists schema_functions (
      name text primary key, sha256 text not null, applied_at timestamptz not null default now())`);
    const migrations = await sqlFiles(MIGRATIONS_DIR);
    const done = new Set(
      (await client.query('select name from schema_migrations')).rows.map((row) => row.name),
    );
    refuseAnOlderHistory(done, migrations);
    const applied: string[] = [];
    for (const file of migrations) {
      if (done.has(file)) continue;
      await inTransaction(client, `migration ${file}`, async () => {
        await client.query(await readFile(new URL(file, MIGRATIONS_DIR), 'utf8'));
        await client.query('insert into schema_migrations (name) values ($1)', [file]);
      });
      applied.push(file);
    }
    const appliedHashes = new Map<string, string>(
      (await client.query('select name, sha256 from schema_functions')).rows.map((row) => [
        row.name,
        row.sha256,
      ]),
    );
    for (const file of await sqlFiles(FUNCTIONS_DIR)) {
      const sql = await readFile(new URL(file, FUNCTIONS_DIR), 'utf8');
      const sha256 = createHash('sha256').update(sql).digest('hex');
      if (appliedHashes.get(file) === sha256) continue;
      await inTransaction(client, `functions/${file}`, async () => {
        await client.query(sql);
        await client.query(
          `insert into schema_functions (name, sha256) values ($1, $2)
           on conflict (name) do update set sha256 = excluded.sha256, applied_at = now()`,
          [file, sha256],
        );
      });
      applied.push(`functions/${file}`);
    }
    return applied;
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
}

async function sqlFiles(dir: URL) {
  return (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
}

async function inTransaction(client: pg.PoolClient, what: string, work: () => Promise<void>) {
  await client.query('begin');
  try {
    // FORCE ROW LEVEL SECURITY holds the owner to the policies too: a migration sees every company's rows.
    await client.query(`select set_config('app.platform', 'on', true)`);
    await work();
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw new Error(`${what} failed: ${(error as Error).message}`);
  }
}

/** A database made by the migrations squashed into the baseline is not upgraded: the baseline would fail halfway. */
function refuseAnOlderHistory(done: Set<string>, migrations: string[]) {
  const unknown = [...done].filter((name) => !migrations.includes(name));
  if (unknown.length === 0) return;
  throw new Error(
    `This database was migrated by an older schema history (${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', ...' : ''}), ` +
      'which was replaced by one baseline (0001-baseline.sql) before the first installation. ' +
      'Start from an empty database: delete the data folder (DATA_DIR) of the embedded PostgreSQL, ' +
      'or drop and recreate the database of DATABASE_URL.',
  );
}
