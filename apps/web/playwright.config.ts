import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { E2E_PORT, e2eBaseUrl } from './e2e/e2e-servers.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
];
// E2E_PORT lets several people run the suite at once, each on its own servers and data folders:
// the run takes E2E_PORT up to E2E_PORT + E2E_WORKERS - 1.
const PORT = E2E_PORT;
// Two workers, each with a server and demo data of its own (e2e/fixtures.ts points a worker's
// pages at its server): most of a browser test is waiting, so two halve the run on two cores.
const WORKERS = Number(process.env.E2E_WORKERS ?? 2);
const PORTS = Array.from({ length: WORKERS }, (_, index) => PORT + index);

// The server serves the built console (apps/web/dist): `npm run test:e2e` builds it first.
export default defineConfig({
  testDir: './e2e',
  // Per port: Playwright empties its output folder at start, which must not hit a parallel run's traces.
  outputDir: `./test-results/port-${PORT}`,
  fullyParallel: false,
  workers: WORKERS,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  // The JSON report feeds the pass/fail count that `npm test` (scripts/test.ts) prints at the end.
  reporter: [['list'], ['json', { outputFile: path.join(ROOT, '.tmp/e2e-results.json') }]],
  use: {
    // Worker 0's; e2e/fixtures.ts gives each worker its own server.
    baseURL: e2eBaseUrl(0),
    // Recording a trace costs about a third of the run's CPU (a DOM snapshot per action, a
    // screencast): a failed test's retry (CI, `npm test`) records it; locally add --trace=on.
    trace: 'on-first-retry',
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
            // Each new context's window preloads the omnibox popup (a WebUI page in a renderer of
            // its own) even headless: about a CPU-second per test, more than the page under test.
            // Chromium keeps only the last --disable-features, so Playwright's own list (the
            // Chromium names in its chromiumSwitches.ts, 1.65) is repeated here.
            `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'].join(',')}`,
          ],
        },
      },
    },
  ],
  webServer: PORTS.map((port) => ({
    command: 'node apps/server/src/main.ts',
    cwd: ROOT,
    env: {
      PORT: String(port),
      DATA_DIR: `.tmp/e2e-data-${port}`,
      E2E_FRESH_DATA: '1',
      // Every test signs in from the same address, more often than a person would.
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
      // The webhooks spec's receiver listens there; every other private address stays refused.
      PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    },
    url: `${e2eBaseUrl(port - PORT)}/api/v1/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
  })),
});
