import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runMigrations } from '../src/db/migrate.ts';
import { databaseUrl, withAdmin } from './support/database-url.ts';

const { adminUrl } = inject('database');
const created: string[] = [];

afterAll(async () => {
  await withAdmin(adminUrl, async (admin) => {
    for (const name of created) await admin.query(`drop database if exists ${name} with (force)`);
  });
});

/** An empty database of its own, and a one-connection pool on it, as the owner. */
async function emptyDatabase() {
  const name = `sms_m_${process.pid}_${created.length}_${Date.now().toString(36)}`;
  created.push(name);
  await withAdmin(adminUrl, (admin) => admin.query(`create database ${name}`));
  return new pg.Pool({ connectionString: databaseUrl(adminUrl, name), max: 1 });
}

describe('runMigrations', () => {
  it('gives an empty database the baseline and every function file, then has nothing left to apply', async () => {
    const pool = await emptyDatabase();
    try {
      const applied = await runMigrations(pool);
      expect(applied[0]).toBe('0001-baseline.sql');
      expect(applied).toContain('functions/01-tenant-wall.sql');
      expect(await runMigrations(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('applies a function file again once its text differs from what was applied', async () => {
    const pool = await emptyDatabase();
    try {
      await runMigrations(pool);
      // As if the file had been edited since: its recorded hash is another one.
      await pool.query(`drop trigger services_inserted on services`);
      await pool.query(
        `update schema_functions set sha256 = 'edited' where name = '13-service-triggers.sql'`,
      );
      expect(await runMigrations(pool)).toEqual(['functions/13-service-triggers.sql']);
      const { rowCount } = await pool.query(`select 1 from pg_trigger where tgname = 'services_inserted'`);
      expect(rowCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('applies every function file again over its own definitions (each file is idempotent)', async () => {
    const pool = await emptyDatabase();
    try {
      const first = (await runMigrations(pool)).filter((name) => name.startsWith('functions/'));
      await pool.query('delete from schema_functions');
      expect(await runMigrations(pool)).toEqual(first);
    } finally {
      await pool.end();
    }
  });

  it('refuses a database made by the squashed migrations, saying how to start again', async () => {
    const pool = await emptyDatabase();
    try {
      await pool.query(`create table schema_migrations (
        name text primary key, applied_at timestamptz not null default now())`);
      await pool.query(`insert into schema_migrations (name)
        values ('0001-initial.sql'), ('0003-services-subscriber-counts.sql')`);
      await expect(runMigrations(pool)).rejects.toThrow(
        /older schema history \(0001-initial.sql, 0003-services-subscriber-counts.sql\).*delete the data folder/,
      );
      const { rowCount } = await pool.query(`select 1 from pg_tables where tablename = 'companies'`);
      expect(rowCount).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
