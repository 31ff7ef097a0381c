import { expect, test } from './fixtures.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

test('a viewer opening /admin sees Access Denied', async ({ page }) => {
  await signIn(page, DEMO_USERS.viewer);

  await page.goto('/admin');

  await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
  await expect(page.getByText('System administrator access required.')).toBeVisible();
  // exact: the search box's own hint also speaks of 'your role'.
  await expect(page.getByText('Your role', { exact: true }).locator('..')).toContainText('viewer');
  await expect(page.getByText('Required role').locator('..')).toContainText('system admin');
  await page.getByRole('button', { name: 'Go Back' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('the viewer dashboard shows the company badge with Read-Only Access', async ({ page }) => {
  await signIn(page, DEMO_USERS.viewer);

  await expect(page.getByTestId('read-only-badge')).toContainText('Acme Mobile');
  await expect(page.getByTestId('read-only-badge')).toContainText('Read-Only Access');
});

test('an unknown path shows the 404 page', async ({ page }) => {
  await page.goto('/no/such/page');

  await expect(page.getByRole('heading', { name: 'Page Not Found' })).toBeVisible();
  await expect(page.getByText("The page you're looking for doesn't exist.")).toBeVisible();
  await page.getByRole('link', { name: 'Go to Dashboard' }).click();
  await expect(page).toHaveURL(/\/login$/);
});

test('/ leads a signed-in user to /dashboard', async ({ page }) => {
  await signIn(page, DEMO_USERS.systemAdmin);

  await page.goto('/');

  await expect(page).toHaveURL(/\/dashboard$/);
});

test('the sidebar navigates between pages', async ({ page }) => {
  await signIn(page, DEMO_USERS.systemAdmin);
  const nav = page.getByRole('navigation', { name: 'Main navigation' });

  await nav.getByRole('link', { name: 'Messages' }).click();
  await expect(page).toHaveURL(/\/messages$/);
  await expect(page.getByRole('heading', { name: 'Message Logs', level: 1 })).toBeVisible();

  await nav.getByRole('link', { name: 'Audit Log' }).click();
  await expect(page).toHaveURL(/\/admin\/audit$/);
  await expect(nav.getByRole('link', { name: 'Audit Log' })).toHaveAttribute('aria-current', 'page');
});

test('on a small screen the menu is a drawer', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await signIn(page, DEMO_USERS.companyAdmin);
  const nav = page.getByRole('navigation', { name: 'Main navigation' });

  await expect(nav).toBeHidden();
  await page.getByRole('button', { name: 'Open menu' }).click();
  await expect(nav).toBeVisible();
  await nav.getByRole('link', { name: 'Services' }).click();

  await expect(page).toHaveURL(/\/services$/);
  await expect(nav).toBeHidden();
});
