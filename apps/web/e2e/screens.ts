import type { Locator, Page } from '@playwright/test';

/**
 * The screens a person looks at, taken only when asked for (E2E_SCREENS=1): each one costs the
 * browser a full render and an image, about a sixth of a run's CPU for some seventy of them.
 */
export async function screenshot(target: Page | Locator, options: { path: string; fullPage?: boolean }) {
  if (process.env.E2E_SCREENS) await target.screenshot(options);
}
