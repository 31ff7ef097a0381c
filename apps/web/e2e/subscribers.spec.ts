import { readFile } from 'node:fs/promises';
import { expect, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const table = (page: import('@playwright/test').Page) => page.getByRole('table', { name: 'Subscribers' });

test.describe('subscribers', () => {
  test('pages, resizes and searches on the server', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/subscribers');
    await expect(table(page).getByRole('row')).toHaveCount(21);
    await expect(page.getByText(/^Page 1 of \d+ · 3,000 subscribers$/)).toBeVisible();
    await screenshot(page, { path: 'test-results/screens/subscribers-list.png', fullPage: true });

    const firstPageNumber = await table(page).getByRole('row').nth(1).getByRole('cell').first().textContent();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByText(/^Page 2 of/)).toBeVisible();
    await expect(table(page).getByRole('row').nth(1).getByRole('cell').first()).not.toHaveText(
      firstPageNumber ?? '',
    );

    await page.getByLabel('Subscribers per page').selectOption('50');
    await expect(page.getByText(/^Page 1 of 60 · 3,000 subscribers$/)).toBeVisible();
    await expect(table(page).getByRole('row')).toHaveCount(51);

    // The first subscriber is far beyond the loaded page: the server finds it.
    await page.getByRole('searchbox', { name: 'Search by phone number' }).fill('0710000001');
    await expect(table(page).getByRole('row')).toHaveCount(2);
    await expect(table(page).getByText('+254710000001')).toBeVisible();

    await page.getByRole('searchbox', { name: 'Search by phone number' }).fill('799999999');
    await expect(page.getByText('No subscribers found')).toBeVisible();
  });

  test('imports a CSV with a bad line, then finds the imported rows', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/subscribers');
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import Subscribers' });
    await dialog.getByLabel('Service').selectOption({ label: 'Weather Updates (22551 WEATHER)' });
    await dialog.getByLabel('CSV file').setInputFiles({
      name: 'numbers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('name,phone\nAnn,0799000001\nBob,+254799000002\nCy,not-a-number\nDi,0799000001\n'),
    });
    const upload = page.waitForRequest((request) => request.url().endsWith('/subscribers/import'));
    await dialog.getByRole('button', { name: 'Import' }).click();
    // The file goes as multipart form data (streamed by the browser), not as JSON text.
    expect(await (await upload).headerValue('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    const summary = dialog.getByRole('definition');
    await expect(dialog.getByText('Imported', { exact: true })).toBeVisible();
    await expect(summary.nth(1)).toHaveText('2');
    const errors = dialog.getByRole('table', { name: 'Import errors' });
    await expect(errors.getByRole('row', { name: /4 not-a-number/ })).toBeVisible();
    await screenshot(page, { path: 'test-results/screens/subscribers-import.png' });
    await dialog.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('searchbox', { name: 'Search by phone number' }).fill('79900000');
    await expect(table(page).getByRole('row')).toHaveCount(3);
    await expect(table(page).getByText('+254799000002')).toBeVisible();
    await expect(table(page).getByText('Weather Updates').first()).toBeVisible();
  });

  test('subscribes and unsubscribes a number, and exports the list', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/subscribers');
    await page.getByRole('button', { name: 'Subscribe Number' }).click();
    const dialog = page.getByRole('dialog', { name: 'Subscribe a Number' });
    await dialog.getByLabel('Phone Number').fill('0798 000 001');
    await dialog.getByLabel('Service').selectOption({ label: 'Sports Alerts (22550 SPORTS)' });
    await dialog.getByRole('button', { name: 'Subscribe' }).click();
    await expect(page.getByText('+254798000001 subscribed to Sports Alerts')).toBeVisible();

    await page.getByRole('searchbox', { name: 'Search by phone number' }).fill('798000001');
    const row = table(page).getByRole('row', { name: /\+254798000001/ });
    await expect(table(page).getByRole('row')).toHaveCount(2);
    await expect(row.getByText('Sports Alerts')).toBeVisible();

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    const csv = await readFile(file, 'utf8');
    expect(csv.trim().split('\n')).toEqual([
      'phone_number,status,created_at,active_services',
      expect.stringMatching(/^\+254798000001,active,.+,Sports Alerts$/),
    ]);

    await row.getByRole('button', { name: 'Unsubscribe +254798000001' }).click();
    await page
      .getByRole('dialog', { name: 'Unsubscribe a Number' })
      .getByRole('button', { name: 'Unsubscribe' })
      .click();
    await expect(page.getByText('+254798000001 unsubscribed from Sports Alerts')).toBeVisible();
    await expect(row.getByText('unsubscribed')).toBeVisible();
  });

  test('a system admin sees each number’s company and narrows the list and export to one', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.systemAdmin);
    await page.goto('/subscribers');
    await expect(table(page).getByRole('columnheader', { name: 'Company' })).toBeVisible();
    await expect(table(page).getByRole('row')).toHaveCount(21);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByText(/^Page 2 of/)).toBeVisible();

    const companyFilter = page.getByLabel('Filter by company');
    await expect(companyFilter.getByRole('option', { name: 'All Companies' })).toBeAttached();
    await companyFilter.selectOption({ label: 'Globex Telecom' });
    // A new filter starts again at page 1.
    await expect(page.getByText(/^Page 1 of 75 · 1,500 subscribers$/)).toBeVisible();
    const rows = table(page).getByRole('row');
    await expect(rows).toHaveCount(21);
    for (const row of await rows.all().then((all) => all.slice(1))) {
      await expect(row.getByRole('cell').nth(0)).toHaveText(/^\+25472\d{7}$/);
      await expect(row.getByRole('cell').nth(1)).toHaveText('Globex Telecom');
    }
    await screenshot(page, { path: 'test-results/screens/subscribers-admin-company.png', fullPage: true });

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const lines = (await readFile(await (await download).path(), 'utf8')).trim().split('\n');
    expect(lines[0]).toBe('phone_number,status,created_at,active_services,company');
    expect(lines).toHaveLength(1501);
    expect(lines.slice(1).every((line) => /^\+25472\d{7},.*,Globex Telecom$/.test(line))).toBe(true);

    await companyFilter.selectOption({ label: 'All Companies' });
    // Every company again: other specs add numbers and companies to the seeded 5,400, so the
    // expected total is the API's own for the same request.
    const token = await page.evaluate(() => localStorage.getItem('accessToken'));
    const everyone = await page.request.get('/api/v1/subscriptions/subscribers?page=1&limit=20', {
      headers: { authorization: `Bearer ${token}` },
    });
    const { totalItems, totalPages } = (await everyone.json()).data as {
      totalItems: number;
      totalPages: number;
    };
    expect(totalItems).toBeGreaterThanOrEqual(5_400);
    await expect(
      page.getByText(new RegExp(`^Page 1 of ${totalPages} · ${totalItems.toLocaleString('en-US')}`)),
    ).toBeVisible();
  });

  test('a company admin sees no company column or filter', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/subscribers');
    await expect(table(page).getByRole('row')).toHaveCount(21);
    await expect(table(page).getByRole('columnheader')).toHaveText([
      'Phone number',
      'Status',
      'Active services',
      'Fields',
      'Joined',
      'Actions',
    ]);
    await expect(page.getByLabel('Filter by company')).toHaveCount(0);
  });

  test('an invalid number is refused with the server’s reason', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/subscribers');
    await page.getByRole('button', { name: 'Subscribe Number' }).click();
    const dialog = page.getByRole('dialog', { name: 'Subscribe a Number' });
    await dialog.getByLabel('Phone Number').fill('12345');
    await dialog.getByLabel('Service').selectOption({ label: 'Daily News (22550 NEWS)' });
    await dialog.getByRole('button', { name: 'Subscribe' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('12345 is not a valid phone number');
  });
});
