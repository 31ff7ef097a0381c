import path from 'node:path';
import { API_KEY_MESSAGES, API_KEY_PATTERN } from '@sms/contracts/api-keys/api-key';
import { expect, type Page, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const screen = (name: string) => path.resolve(import.meta.dirname, `../../../.tmp/screens/${name}.png`);

/** A request made the way an integration makes it: the key as the bearer token, no console session. */
const withKey = (page: Page, key: string, method: 'GET' | 'POST', url: string, data?: object) =>
  page.request.fetch(`/api/v1${url}`, { method, headers: { authorization: `Bearer ${key}` }, data });

test('a company admin creates an API key, the key works on its scope only, and revoking it stops it', async ({
  page,
}) => {
  await signIn(page, DEMO_USERS.companyAdmin);
  await page.getByRole('region', { name: 'Quick Actions' }).getByRole('link', { name: 'API Keys' }).click();
  await expect(page).toHaveURL(/\/settings\/api-keys$/);
  await expect(page.getByRole('heading', { name: 'API Keys' })).toBeVisible();

  const name = `Billing system ${Date.now().toString(36)}`;
  await page.getByRole('button', { name: 'Create API Key' }).click();
  const form = page.getByRole('dialog', { name: 'Create API Key' });
  // Nothing chosen: the form says what is missing and sends nothing.
  await form.getByRole('button', { name: 'Create Key' }).click();
  await expect(form.getByText(API_KEY_MESSAGES.nameRequired)).toBeVisible();
  await expect(form.getByText(API_KEY_MESSAGES.scopesRequired)).toBeVisible();
  await form.getByLabel('Name').fill(name);
  await form.getByRole('checkbox', { name: /Read messages and reports/ }).check();
  await screenshot(page, { path: screen('api-keys-create') });
  await form.getByRole('button', { name: 'Create Key' }).click();

  const created = page.getByRole('dialog', { name: 'API Key Created' });
  await expect(created.getByText(API_KEY_MESSAGES.shownOnce)).toBeVisible();
  const key = await created.getByRole('textbox', { name }).inputValue();
  expect(key).toMatch(API_KEY_PATTERN);
  await screenshot(page, { path: screen('api-keys-created') });

  // Its scope opens the message logs; sending is another scope's: 403.
  const read = await withKey(page, key, 'GET', '/messages');
  expect(read.status()).toBe(200);
  const send = await withKey(page, key, 'POST', '/messages', { serviceIds: [1], message: 'Hi' });
  expect(send.status()).toBe(403);
  expect((await send.json()).message).toBe(API_KEY_MESSAGES.scopeMissing('Send messages'));

  await created.getByRole('button', { name: 'Done' }).click();
  await expect(created).toHaveCount(0);
  const row = page.getByRole('row', { name: new RegExp(name) });
  await expect(row).toContainText(key.split('_').slice(0, 3).join('_'));
  await expect(row).toContainText('Read messages and reports');
  await expect(row).toContainText('Active');
  // Used once above: the list says when (after a reload, as the list was read before the call).
  await page.reload();
  await expect(row).not.toContainText('Never');
  // The secret is never shown again.
  await expect(page.getByText(key)).toHaveCount(0);
  await screenshot(page, { path: screen('api-keys-list') });

  await row.getByRole('button', { name: `Revoke ${name}` }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Revoke API Key' });
  await screenshot(page, { path: screen('api-keys-revoke') });
  await confirm.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('Revoked');
  await expect(row.getByRole('button', { name: `Revoke ${name}` })).toHaveCount(0);

  const refused = await withKey(page, key, 'GET', '/messages');
  expect(refused.status()).toBe(401);
  expect((await refused.json()).message).toBe(API_KEY_MESSAGES.revokedKey);
});

test('only a company admin opens the API keys page', async ({ page }) => {
  await signIn(page, DEMO_USERS.contentManager);
  await expect(
    page.getByRole('region', { name: 'Quick Actions' }).getByRole('link', { name: 'API Keys' }),
  ).toHaveCount(0);
  await page.goto('/settings/api-keys');
  await expect(page.getByText('Only company administrators manage API keys.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create API Key' })).toHaveCount(0);
});
