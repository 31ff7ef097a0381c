import { expect, type Page } from '@playwright/test';

export const DEMO_PASSWORD = 'Password123!';

export const DEMO_USERS = {
  systemAdmin: 'admin@example.com',
  companyAdmin: 'owner@acme.example.com',
  contentManager: 'editor@acme.example.com',
  viewer: 'viewer@acme.example.com',
} as const;

export async function fillSignIn(page: Page, email: string, password = DEMO_PASSWORD) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in through the form and waits for the dashboard greeting. */
export async function signIn(page: Page, email: string) {
  await page.goto('/login');
  await fillSignIn(page, email);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { name: /^Welcome back, .+!$/ })).toBeVisible();
}

export function sidebarLinks(page: Page) {
  return page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link');
}
