import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'contracts',
    root: import.meta.dirname,
    // A project does not inherit the root's maxWorkers (see ../../vitest.config.ts).
    maxWorkers: 4,
    include: ['src/**/*.test.ts'],
    // Pure functions: nothing a file leaves behind can reach the next, so the modules load once per worker.
    isolate: false,
    passWithNoTests: true,
  },
});
