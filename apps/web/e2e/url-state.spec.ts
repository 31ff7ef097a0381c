import path from 'node:path';
import { expect, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const SCREENS = path.resolve(import.meta.dirname, '../../../.tmp/screens');

test.describe('filters and pages live in the address', () => {
  test('Message Logs: a filter, a search and a page survive a reload and a shared link, and Back undoes them', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/messages');
    const table = page.getByRole('table', { name: 'Messages' });
    await expect(table).toBeVisible();

    await page.getByLabel('Filter by direction').selectOption('outbound');
    await expect(page).toHaveURL(/direction=outbound/);
    await page.getByRole('button', { name: 'Next', exact: true }).click();
    await expect(page).toHaveURL(/page=2/);
    await page.reload();
    await expect(page.getByLabel('Filter by direction')).toHaveValue('outbound');
    await expect(page.getByText(/Page 2 of/)).toBeVisible();

    // Back: to page 1 of the filter, then to no filter at all.
    await page.goBack();
    await expect(page).not.toHaveURL(/page=2/);
    await expect(page.getByLabel('Filter by direction')).toHaveValue('outbound');
    await page.goBack();
    await expect(page.getByLabel('Filter by direction')).toHaveValue('');

    await page.getByRole('searchbox', { name: 'Search messages' }).fill('1809');
    await expect(page).toHaveURL(/search=1809/);
    const shared = page.url();
    const other = await page.context().newPage();
    await other.goto(shared);
    await expect(other.getByRole('searchbox', { name: 'Search messages' })).toHaveValue('1809');
    await expect(other.getByText('Search: "1809"')).toBeVisible();
    await screenshot(other, { path: `${SCREENS}/06-messages-url-state.png`, fullPage: true });
    await other.close();
  });

  test('Subscribers, Services and Audit Log read their filters from the address', async ({ page }) => {
    await signIn(page, DEMO_USERS.systemAdmin);
    await page.goto('/subscribers?status=active&limit=50&page=2');
    await expect(page.getByLabel('Filter by status')).toHaveValue('active');
    await expect(page.getByLabel('Subscribers per page')).toHaveValue('50');
    await expect(page.getByText(/Page 2 of/)).toBeVisible();
    await page.getByLabel('Filter by status').selectOption('unsubscribed');
    await expect(page).toHaveURL(/status=unsubscribed/);
    await expect(page).not.toHaveURL(/page=2/);
    await page.goBack();
    await expect(page.getByLabel('Filter by status')).toHaveValue('active');
    await expect(page.getByText(/Page 2 of/)).toBeVisible();
    await screenshot(page, { path: `${SCREENS}/06-subscribers-url-state.png` });

    await page.goto('/services?status=active&search=weather');
    await expect(page.getByRole('searchbox', { name: 'Search services' })).toHaveValue('weather');
    await expect(page.getByRole('table').getByRole('row')).not.toHaveCount(1);
    await expect(page.getByRole('table')).toContainText(/Weather/);
    await expect(page.getByRole('table')).not.toContainText('Sports Alerts');

    await page.goto('/admin/audit?entity=COMPANY');
    await expect(page.getByLabel('Entity')).toHaveValue('COMPANY');
    await page.getByLabel('Action').selectOption({ index: 1 });
    await page.goBack();
    await expect(page.getByLabel('Action')).toHaveValue('');
    await expect(page.getByLabel('Entity')).toHaveValue('COMPANY');
  });

  test('Admin Panel: the tab and its filters survive a reload, and Back goes to the other tab', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.systemAdmin);
    await page.goto('/admin');
    await page.getByRole('tab', { name: 'Users' }).click();
    await expect(page).toHaveURL(/tab=users/);
    await page.getByLabel('Filter by role').selectOption('viewer');
    await expect(page).toHaveURL(/role=viewer/);
    await page.reload();
    await expect(page.getByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByLabel('Filter by role')).toHaveValue('viewer');
    await expect(page.getByRole('table')).toContainText('viewer@acme.example.com');
    await screenshot(page, { path: `${SCREENS}/06-admin-url-state.png` });
    await page.goBack();
    await page.goBack();
    await expect(page.getByRole('tab', { name: 'Companies' })).toHaveAttribute('aria-selected', 'true');
  });
});
