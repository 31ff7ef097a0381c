import { test as base } from '@playwright/test';
import { e2eBaseUrl } from './e2e-servers.ts';

export * from '@playwright/test';

/**
 * A worker's pages and API calls go to its own server (e2e-servers.ts): a spec never sees what a
 * spec in the other worker creates, sends or deletes, as when the specs ran one at a time.
 */
export const test = base.extend({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  baseURL: async ({}, use, testInfo) => {
    await use(e2eBaseUrl(testInfo.parallelIndex));
  },
});
