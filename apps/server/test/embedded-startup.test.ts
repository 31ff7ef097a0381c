import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { StartupError } from '../src/lib/startup-error.ts';

describe('startEmbeddedPostgres', () => {
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
