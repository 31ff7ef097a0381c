import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PASSWORD_FILE, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { StartupError } from '../src/lib/startup-error.ts';

/** The code PostgreSQL refuses the sign-in with, or 'signed in'. */
async function signInAs(url: string, password: string) {
  const withPassword = new URL(url);
  withPassword.password = encodeURIComponent(password);
  const client = new pg.Client({ connectionString: withPassword.toString() });
  try {
    await client.connect();
    await client.end();
    return 'signed in';
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  }
}

describe('startEmbeddedPostgres', () => {
  it("gives the superuser a random password, kept in DATA_DIR/postgres-password (mode 600), and changes an older folder's `postgres`", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-password-'));
    const file = path.join(dataDir, PASSWORD_FILE);
    try {
      const server = await startEmbeddedPostgres(dataDir, () => {});
      const url = server.connectionString('postgres');
      const password = readFileSync(file, 'utf8').trim();
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(password).not.toBe('postgres');
      expect(password.length).toBeGreaterThanOrEqual(24);
      expect(decodeURIComponent(new URL(url).password)).toBe(password);
      expect(await signInAs(url, password)).toBe('signed in');
      expect(await signInAs(url, 'postgres')).toBe('28P01');

      // A data folder of an earlier version: the superuser's password is `postgres`, and no file.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`alter role postgres with password 'postgres'`);
      await client.end();
      await server.stop();
      rmSync(file);

      const again = await startEmbeddedPostgres(dataDir, () => {});
      try {
        const renewed = readFileSync(file, 'utf8').trim();
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(renewed).not.toBe('postgres');
        expect(renewed).not.toBe(password);
        expect(await signInAs(again.connectionString('postgres'), renewed)).toBe('signed in');
        expect(await signInAs(again.connectionString('postgres'), 'postgres')).toBe('28P01');
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('says which folder failed, in a StartupError, when PostgreSQL stops before it is ready', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-startup-'));
    try {
      const first = await startEmbeddedPostgres(dataDir, () => {});
      await first.stop();
      // A setting PostgreSQL refuses at start: the server exits at once, and the library rejects
      // with no reason at all.
      appendFileSync(path.join(dataDir, 'pg', 'postgresql.auto.conf'), "shared_buffers = 'plenty'\n");
      const failed = await startEmbeddedPostgres(dataDir, () => {}).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(StartupError);
      expect((failed as Error).message).toContain(
        `Could not start the embedded PostgreSQL in ${path.join(dataDir, 'pg')} (PostgreSQL stopped before it was ready).`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
