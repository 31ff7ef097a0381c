import { expect, test } from './fixtures.ts';
import { DEMO_USERS, fillSignIn, sidebarLinks, signIn } from './sign-in.ts';

const MENUS = [
  {
    email: DEMO_USERS.systemAdmin,
    role: 'system admin',
    entries: ['Dashboard', 'Services', 'Subscribers', 'Messages', 'Reports', 'Admin Panel', 'Audit Log'],
  },
  {
    email: DEMO_USERS.companyAdmin,
    role: 'company admin',
    entries: ['Dashboard', 'Services', 'Subscribers', 'Messages', 'Reports'],
  },
  {
    email: DEMO_USERS.contentManager,
    role: 'content manager',
    entries: ['Dashboard', 'Services', 'Messages', 'Reports'],
  },
  { email: DEMO_USERS.viewer, role: 'viewer', entries: ['Dashboard', 'Reports'] },
];

test.describe('sign-in', () => {
  test('shows the sign-in page', async ({ page }) => {
    await page.goto('/login');

    await expect(page.getByRole('heading', { name: 'Welcome to SMS Console' })).toBeVisible();
    await expect(page.getByText('Sign in to your account to continue')).toBeVisible();
    await expect(page.getByLabel('Email')).toHaveAttribute('type', 'email');
    await page.getByLabel('Password', { exact: true }).fill('secret');
    await page.getByRole('button', { name: 'Show password' }).click();
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'text');
  });

  for (const { email, role, entries } of MENUS) {
    test(`${email} sees the ${role} menu`, async ({ page }) => {
      await signIn(page, email);

      await expect(sidebarLinks(page)).toHaveText(entries);
      await expect(page.getByTestId('sidebar-user')).toContainText(role);
    });
  }

  test('a wrong password shows the server message in a red box', async ({ page }) => {
    await page.goto('/login');
    await fillSignIn(page, DEMO_USERS.companyAdmin, 'not-the-password');

    const alert = page.getByRole('alert');
    await expect(alert).toHaveText('Invalid email or password');
    await expect(alert).toHaveCSS('background-color', /rgb\(254, 242, 242\)|oklch\(0\.971 0\.013 17\.38\)/);
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  test('signing out returns to /login and ends the session', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);

    await page.getByRole('button', { name: /^User menu for / }).click();
    await expect(page.getByText(DEMO_USERS.companyAdmin)).toBeVisible();
    await page.getByRole('button', { name: 'Sign out' }).click();

    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('heading', { name: 'Welcome to SMS Console' })).toBeVisible();
    expect(
      await page.evaluate(() => [localStorage.getItem('accessToken'), localStorage.getItem('refreshToken')]),
    ).toEqual([null, null]);

    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('after signing out, the next user to sign in in that tab lands on /dashboard, not the previous page', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await sidebarLinks(page).getByText('Services').click();
    await expect(page).toHaveURL(/\/services$/);

    await page.getByRole('button', { name: /^User menu for / }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/login$/);

    // The viewer cannot open /services: being sent there would show Access Denied.
    await fillSignIn(page, DEMO_USERS.viewer);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { name: /^Welcome back, .+!$/ })).toBeVisible();
  });

  test('an unauthenticated visit to /reports goes to /login, then back to /reports after signing in', async ({
    page,
  }) => {
    await page.goto('/reports');
    await expect(page).toHaveURL(/\/login$/);

    await fillSignIn(page, DEMO_USERS.viewer);

    await expect(page).toHaveURL(/\/reports$/);
    await expect(page.getByRole('heading', { name: 'Reports & Analytics', level: 1 })).toBeVisible();
  });

  test('a signed-in user who opens /login goes to /dashboard', async ({ page }) => {
    await signIn(page, DEMO_USERS.viewer);

    await page.goto('/login');

    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('the session survives a reload', async ({ page }) => {
    await signIn(page, DEMO_USERS.contentManager);

    await page.reload();

    await expect(page.getByRole('heading', { name: /^Welcome back, .+!$/ })).toBeVisible();
    await expect(sidebarLinks(page)).toHaveText(['Dashboard', 'Services', 'Messages', 'Reports']);
  });

  test('an expired access token is refreshed once and the session goes on', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    const before = await page.evaluate(() => localStorage.getItem('refreshToken'));
    await page.evaluate(() => localStorage.setItem('accessToken', 'expired-or-garbage'));

    await page.reload();

    await expect(page.getByRole('heading', { name: /^Welcome back, .+!$/ })).toBeVisible();
    const after = await page.evaluate(() => [
      localStorage.getItem('accessToken'),
      localStorage.getItem('refreshToken'),
    ]);
    expect(after[0]).not.toBe('expired-or-garbage');
    expect(after[1]).not.toBe(before);
  });
});
