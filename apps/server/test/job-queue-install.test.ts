import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runMigrations } from '../src/db/migrate.ts';
import { installJobQueue } from '../src/messaging/queue/job-queue.ts';
import { databaseUrl, withAdmin } from './support/database-url.ts';

const { adminUrl } = inject('database');
const created: string[] = [];

afterAll(async () => {
  await withAdmin(adminUrl, async (admin) => {
    for (const name of created) {
      // A pool's end() resolves before its sockets close; forcing them off then would reach a
      // client nobody listens to any more (an unhandled error), so wait until they have left.
      for (let tries = 0; tries < 100; tries++) {
        const { rowCount } = await admin.query('select 1 from pg_stat_activity where datname = $1', [name]);
        if (!rowCount) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await admin.query(`drop database if exists ${name} with (force)`);
    }
  });
});

describe('installJobQueue', () => {
  // Several processes (API and workers) start at once on one database and each installs the queue:
  // pg-boss's schema, our queues and the grants must come out right whoever comes first.
  it('installs the queue from several processes starting at once on an empty database', async () => {
    const name = `sms_q_${process.pid}_${Date.now().toString(36)}`;
    created.push(name);
    await withAdmin(adminUrl, (admin) => admin.query(`create database ${name}`));
    const url = databaseUrl(adminUrl, name);
    const migrator = new pg.Pool({ connectionString: url, max: 1 });
    await runMigrations(migrator);
    await migrator.end();
    // Each start-up has its own owner pool of two connections, as open-database.ts gives it.
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: url, max: 2 }));
    try {
      const results = await Promise.allSettled(pools.map((pool) => installJobQueue(pool)));
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
      const { rows } = await pools[0].query<{ count: string }>('select count(*) from pgboss.queue');
      expect(Number(rows[0].count)).toBeGreaterThan(0);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
