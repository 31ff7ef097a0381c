import path from 'node:path';
import { expect, test } from '@playwright/test';
import { DEMO_USERS, fillSignIn, signIn } from './sign-in.ts';

const SCREENS = path.resolve(import.meta.dirname, '../../../.tmp/screens');

test.describe('consistent and calm', () => {
  test('the page title names the page', async ({ page }) => {
    await page.goto('/login');
    await expect(page).toHaveTitle('Sign in · SMS Console');
    await signIn(page, DEMO_USERS.companyAdmin);
    await expect(page).toHaveTitle('Dashboard · SMS Console');
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Messages' })
      .click();
    await expect(page).toHaveTitle('Message Logs · SMS Console');
    await page.goto('/subscribers');
    await expect(page).toHaveTitle('Subscribers · SMS Console');
    await page.goto('/no-such-page');
    await expect(page).toHaveTitle('Page Not Found · SMS Console');
  });

  test('counts have thousands separators and a single item reads as one', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/subscribers?search=%2B254710001809');
    await expect(page.getByRole('navigation', { name: 'Pagination' })).toContainText(
      'Page 1 of 1 · 1 subscriber',
    );
    await expect(page.getByRole('navigation', { name: 'Pagination' })).not.toContainText('1 subscribers');
    await page.goto('/subscribers');
    await expect(page.getByRole('navigation', { name: 'Pagination' })).toContainText(/· 3,000 subscribers/);
    await page.screenshot({ path: `${SCREENS}/09-plural-subscribers.png` });
  });

  test('after the session expires, the sign-in page says why', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    // The server no longer accepts either token (as after they expire or are revoked).
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage))
        if (/token/i.test(key)) localStorage.setItem(key, 'expired.token.value');
    });
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Messages' })
      .click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('status')).toHaveText('Your session has expired. Please sign in again.');
    await page.screenshot({ path: `${SCREENS}/09-session-expired.png` });
    // Signing in again goes back to the page; a plain sign-out then says nothing of an expiry.
    await fillSignIn(page, DEMO_USERS.companyAdmin);
    await expect(page).toHaveURL(/\/messages$/);
    await page.getByRole('button', { name: 'User menu for Amina' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText(/session has expired/)).toHaveCount(0);
  });
});

test("Create Message: a suspended or pending company's services cannot be ticked, and say why", async ({
  page,
}) => {
  await signIn(page, DEMO_USERS.systemAdmin);
  await page.goto('/messages');
  await page.getByRole('button', { name: 'Create Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create New Message' });
  const services = dialog.getByRole('checkbox');
  await expect(services.first()).toBeVisible();
  // Umbrella Alerts is suspended and Initech Messaging pending in the demo data.
  for (const company of ['Umbrella Alerts', 'Initech Messaging']) {
    const held = dialog.getByRole('listitem').filter({ hasText: company });
    await expect(held.first()).toBeVisible();
    for (const box of await held.getByRole('checkbox').all()) await expect(box).toBeDisabled();
    await expect(held.first()).toContainText(/company (suspended|pending), cannot send/);
  }
  const acme = dialog
    .getByRole('listitem')
    .filter({ hasText: 'Acme Mobile' })
    .filter({ hasText: 'Sports Alerts' });
  await expect(acme.getByRole('checkbox')).toBeEnabled();
  await dialog.getByRole('listitem').filter({ hasText: 'Umbrella Alerts' }).first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENS}/09-create-message-held-company.png` });
});
