import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

const ROOT = path.resolve(import.meta.dirname, '../..');
// E2E_PORT lets several people run the suite at once, each on its own server and data folder.
const PORT = Number(process.env.E2E_PORT ?? 3100);
const BASE_URL = `http://localhost:${PORT}`;

// The server serves the built console (apps/web/dist): `npm run test:e2e` builds it first.
export default defineConfig({
  testDir: './e2e',
  // Per port: Playwright empties its output folder at start, which must not hit a parallel run's traces.
  outputDir: `./test-results/port-${PORT}`,
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  // The JSON report feeds the pass/fail count that `npm test` (scripts/test.ts) prints at the end.
  reporter: [['list'], ['json', { outputFile: path.join(ROOT, '.tmp/e2e-results.json') }]],
  use: {
    baseURL: BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          // Debian's Chromium: no browser download on these machines.
          executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
            '--disable-quic',
          ],
        },
      },
    },
  ],
  webServer: {
    command: 'node apps/server/src/main.ts',
    cwd: ROOT,
    env: {
      PORT: String(PORT),
      DATA_DIR: `.tmp/e2e-data-${PORT}`,
      E2E_FRESH_DATA: '1',
      // Every test signs in from the same address, more often than a person would.
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
      // The webhooks spec's receiver listens there; every other private address stays refused.
      PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    },
    url: `${BASE_URL}/api/v1/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
