import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    name: 'web',
    root: import.meta.dirname,
    // A project does not inherit the root's maxWorkers (see ../../vitest.config.ts).
    maxWorkers: 4,
    environment: 'jsdom',
    // One jsdom and one module graph per worker, not per file (setting them up was most of the run's
    // time): src/test/setup.ts unmounts and clears storage after every test, and mocks and stubbed
    // globals are restored (below).
    isolate: false,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
