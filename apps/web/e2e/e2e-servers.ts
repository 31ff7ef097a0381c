/**
 * The browser tests' servers: one per Playwright worker (playwright.config.ts starts them), on
 * E2E_PORT + the worker's parallel index, each with its own data folder and demo data.
 */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);

export function e2eBaseUrl(parallelIndex: number) {
  return `http://localhost:${E2E_PORT + parallelIndex}`;
}
