import { expect, test } from '@playwright/test';
import { DEMO_USERS, signIn } from './sign-in.ts';

test('a company admin opens the callback URLs from the dashboard', async ({ page }) => {
  await signIn(page, DEMO_USERS.companyAdmin);
  await page.getByRole('button', { name: 'Manage Webhooks' }).click();
  const dialog = page.getByRole('dialog', { name: 'Callback URLs - Acme Mobile' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('textbox', { name: 'Subscription Callback URL' })).toHaveValue(
    /^http:\/\/localhost:\d+\/api\/v1\/callbacks\/subscription\/\d+\/[\w-]{40,}$/,
  );
  await expect(dialog.getByRole('textbox', { name: 'Delivery Report (DLR) Callback URL' })).toHaveValue(
    /^http:\/\/localhost:\d+\/api\/v1\/callbacks\/dlr\/\d+\/[\w-]{40,}$/,
  );
});

test('quick actions offer only the pages the role may open', async ({ page }) => {
  await signIn(page, DEMO_USERS.contentManager);
  const actions = page.getByRole('region', { name: 'Quick Actions' });
  await expect(actions.getByRole('link')).toHaveText(['Manage Services', 'Send Messages', 'View Reports']);
  await expect(actions.getByRole('button', { name: 'Manage Webhooks' })).toHaveCount(0);
  await actions.getByRole('link', { name: 'Manage Services' }).click();
  await expect(page).toHaveURL(/\/services$/);
});
