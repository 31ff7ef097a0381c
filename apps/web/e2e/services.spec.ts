import { expect, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

test.describe('services', () => {
  test('a company admin creates, edits and deletes a service, with the form rules', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/services');
    await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();
    const daily = page.getByRole('row', { name: /Daily News/ });
    await expect(daily).toBeVisible();
    await screenshot(page, { path: 'test-results/screens/services-list.png', fullPage: true });

    await page.getByRole('button', { name: 'Add Service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Service' });
    await expect(dialog.getByLabel('Billing Type')).toHaveValue('on_demand');
    await expect(dialog.getByLabel('Status')).toHaveValue('active');
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(dialog.getByText('Service name is required')).toBeVisible();
    await expect(dialog.getByText('Short code is required')).toBeVisible();
    await expect(dialog.getByText('Keyword is required')).toBeVisible();
    await expect(dialog.getByLabel('Company')).toHaveCount(0);

    const suffix = Date.now().toString(36).slice(-5);
    await dialog.getByLabel('Service Name').fill(`E2E Jokes ${suffix}`);
    await dialog.getByLabel('Short Code').pressSequentially(`e2e${suffix}`.slice(0, 8));
    await expect(dialog.getByLabel('Short Code')).toHaveValue(`E2E${suffix}`.slice(0, 8).toUpperCase());
    await dialog.getByLabel('Keyword').fill(`JOKE${suffix}`);
    await dialog.getByLabel('Description').fill('A joke a day');
    await screenshot(page, { path: 'test-results/screens/services-form.png' });
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(page.getByText('Service created successfully!')).toBeVisible();
    const row = page.getByRole('row', { name: new RegExp(`E2E Jokes ${suffix}`) });
    await expect(row).toBeVisible();

    await row.getByRole('button', { name: /^Edit/ }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Service' });
    await edit.getByLabel('Service Name').fill(`E2E Riddles ${suffix}`);
    await edit.getByLabel('Status').selectOption('maintenance');
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page.getByText('Service updated successfully!')).toBeVisible();
    const renamed = page.getByRole('row', { name: new RegExp(`E2E Riddles ${suffix}`) });
    await expect(renamed.getByText('Maintenance')).toBeVisible();

    await renamed.getByRole('button', { name: /^Delete/ }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete Service' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect(page.getByText('Service deleted successfully!')).toBeVisible();
    await expect(renamed).toHaveCount(0);
  });

  test('a taken short code + keyword is refused with the spec text and the reason', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/services');
    await page.getByRole('button', { name: 'Add Service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Service' });
    await dialog.getByLabel('Service Name').fill('Copy of news');
    await dialog.getByLabel('Short Code').fill('22550');
    await dialog.getByLabel('Keyword').fill('news');
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(dialog.getByRole('alert')).toContainText(
      'Failed to create service: The short code 22550 with keyword NEWS',
    );
  });

  test('search finds nothing with the spec text', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/services');
    await page.getByRole('searchbox', { name: 'Search services' }).fill('no such service at all');
    await expect(page.getByText('No services found')).toBeVisible();
  });

  test('a content manager sees services read-only', async ({ page }) => {
    await signIn(page, DEMO_USERS.contentManager);
    await page.goto('/services');
    await expect(page.getByRole('row', { name: /Daily News/ })).toBeVisible();
    await expect(page.getByText('View only')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add Service' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Edit/ })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Delete/ })).toHaveCount(0);
    await screenshot(page, { path: 'test-results/screens/services-content-manager.png', fullPage: true });
  });

  test('a system admin must pick a company', async ({ page }) => {
    await signIn(page, DEMO_USERS.systemAdmin);
    await page.goto('/services');
    await expect(page.getByRole('columnheader', { name: 'Company' })).toBeVisible();
    await page.getByRole('button', { name: 'Add Service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Service' });
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expect(dialog.getByText('Company selection is required')).toBeVisible();
    await screenshot(page, { path: 'test-results/screens/services-form-admin.png' });
  });
});
