import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'server',
    root: import.meta.dirname,
    // A project does not inherit the root's maxWorkers (see ../../vitest.config.ts).
    maxWorkers: 4,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['./test/support/global-setup.ts'],
    pool: 'forks',
    // A worker runs its files one after another in one module graph: the app and its libraries are
    // imported once per worker, not once per file (that was a third of the run's time). Each file
    // still has its own database and app (test-app.ts), and closes what it started.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
