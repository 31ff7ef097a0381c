import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'contracts',
    root: import.meta.dirname,
    // A project does not inherit the root's maxWorkers (see ../../vitest.config.ts).
    maxWorkers: 4,
    include: ['src/**/*.test.ts'],
    passWithNoTests: true,
  },
});
