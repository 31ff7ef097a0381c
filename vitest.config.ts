import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/contracts', 'apps/server', 'apps/web'],
    // Vitest's default is one worker less than the cores: one file at a time on a 2-core machine.
    // Server files mostly wait on PostgreSQL and timers, and each has its own database clone, so
    // several run well side by side even on two cores.
    maxWorkers: 4,
  },
});
