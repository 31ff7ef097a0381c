import path from 'node:path';
import { monthlyPriceOf, PLAN_CURRENCY } from '@sms/contracts/plans/plan-catalogue';
import { expect, type Page, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const SCREENS = 'test-results/screens';

/** Calls the API as the signed-in page (its stored token). */
async function apiAs<T>(page: Page, path: string): Promise<T> {
  const token = await page.evaluate(() => localStorage.getItem('accessToken'));
  const response = await page.request.get(`/api/v1${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.ok(), `${path}: ${response.status()}`).toBe(true);
  return (await response.json()).data as T;
}

type TStats = {
  totalServices: number;
  activeServices: number;
  totalSubscribers: number | null;
  totalMessages: number;
  usageStats: {
    messagesUsed: number;
    messagesLimit: number;
    servicesUsed: number;
    servicesLimit: number;
  } | null;
  trends: Record<string, { change: number | null; changeType: string } | null>;
};

const card = (page: Page, name: string) =>
  page.getByRole('region', { name: 'Headline figures' }).getByRole('article', { name });
/** What the card shows for a trend: 'New' (nothing before), '0%' without a triangle, else the triangle the way it moved. */
const trendText = (trend: { change: number | null; changeType: string }) =>
  trend.change === null ? 'New' : trend.change === 0 ? '0%' : trend.change > 0 ? '▲' : '▼';

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
  // They cannot send: the shortcut to the logs says View, not Send.
  await expect(actions.getByRole('link')).toHaveText(['Manage Services', 'View Messages', 'View Reports']);
  await screenshot(page, {
    path: path.resolve(import.meta.dirname, '../../../.tmp/screens/08-quick-actions-content-manager.png'),
  });
  await expect(actions.getByRole('button', { name: 'Manage Webhooks' })).toHaveCount(0);
  await actions.getByRole('link', { name: 'Manage Services' }).click();
  await expect(page).toHaveURL(/\/services$/);
});

test.describe('dashboard per role, on the demo data', () => {
  test("company admin: the company's real figures, computed trends, gauges, billing and activity", async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await expect(page.getByText("Here's an overview of messaging at Acme Mobile.")).toBeVisible();
    const stats = await apiAs<TStats>(page, '/dashboard/stats');
    // The figures agree with the lists they summarise.
    const services = await apiAs<{ services: { status: string }[] }>(page, '/services');
    expect(stats.totalServices).toBe(services.services.length);
    expect(stats.activeServices).toBe(services.services.filter((s) => s.status === 'active').length);
    const active = await apiAs<{ totalItems: number }>(page, '/subscriptions/subscribers?status=active');
    expect(stats.totalSubscribers).toBe(active.totalItems);
    expect(stats.totalMessages).toBeGreaterThan(10_000);

    for (const [name, key] of [
      ['Total Services', 'totalServices'],
      ['Active Services', 'activeServices'],
      ['Total Subscribers', 'totalSubscribers'],
      ['Messages Sent', 'totalMessages'],
    ] as const) {
      await expect(card(page, name).getByTestId('stat-value')).toHaveText(
        (stats[key] as number).toLocaleString('en-US'),
      );
      const trend = stats.trends[key]!;
      await expect(card(page, name).getByTestId('trend')).toContainText(trendText(trend));
    }
    await expect(page.getByText('View Only - No Edit Access')).toHaveCount(0);

    const usage = page.getByRole('region', { name: 'Usage & Limits' });
    await expect(usage.getByTestId('gauge-messages')).toContainText(
      `${stats.usageStats!.messagesUsed.toLocaleString('en-US')} / ${stats.usageStats!.messagesLimit.toLocaleString('en-US')}`,
    );
    await expect(usage.getByTestId('gauge-subscribers')).toBeVisible();
    await expect(usage.getByTestId('gauge-services')).toContainText(`${stats.totalServices} / 20`);
    await expect(usage.getByText('Read-Only View')).toHaveCount(0);

    const billing = page.getByRole('region', { name: 'Billing Status' });
    await expect(billing.getByText('Active', { exact: true })).toBeVisible();
    // Acme's package ends in 20 days: orange.
    await expect(billing.getByTestId('package-expiry')).toHaveAttribute('data-tone', 'warning');
    const activity = page.getByRole('region', { name: 'Recent Activity' });
    await expect(activity.getByRole('listitem').first()).toBeVisible();
    await expect(activity.getByRole('listitem')).toHaveCount(10);
    await expect(page.getByRole('button', { name: 'Manage Webhooks' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Platform Overview' })).toHaveCount(0);
    await screenshot(page, { path: `${SCREENS}/dashboard-company-admin.png`, fullPage: true });
  });

  test('content manager: three view-only cards, no subscriber card or gauge', async ({ page }) => {
    await signIn(page, DEMO_USERS.contentManager);
    await expect(card(page, 'Total Services').getByTestId('stat-value')).toHaveText(/^\d+$/);
    await expect(page.getByRole('region', { name: 'Headline figures' }).getByRole('article')).toHaveCount(3);
    await expect(card(page, 'Total Subscribers')).toHaveCount(0);
    await expect(page.getByText('View Only - No Edit Access')).toHaveCount(3);
    const usage = page.getByRole('region', { name: 'Usage & Limits' });
    await expect(usage.getByTestId('gauge-messages')).toBeVisible();
    await expect(usage.getByTestId('gauge-subscribers')).toHaveCount(0);
    await screenshot(page, { path: `${SCREENS}/dashboard-content-manager.png`, fullPage: true });
  });

  test('viewer: company badge with Read-Only Access and the Read-Only View tag', async ({ page }) => {
    await signIn(page, DEMO_USERS.viewer);
    await expect(page.getByTestId('read-only-badge')).toHaveText(/Acme Mobile\s*\|\s*Read-Only Access/);
    await expect(
      page.getByRole('region', { name: 'Usage & Limits' }).getByText('Read-Only View'),
    ).toBeVisible();
    await expect(card(page, 'Total Subscribers').getByTestId('stat-value')).toHaveText(/^[\d,]+$/);
    await expect(page.getByRole('button', { name: 'Manage Webhooks' })).toHaveCount(0);
    await screenshot(page, { path: `${SCREENS}/dashboard-viewer.png`, fullPage: true });
  });

  test('system admin: platform totals and the Platform Overview with revenue in thousands', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.systemAdmin);
    const platform = page.getByRole('region', { name: 'Platform Overview' });
    // Other specs add companies and services to the shared demo data, so the expectations are
    // summed here from the admin lists and the plan catalogue, not fixed numbers.
    const { companies } = await apiAs<{ companies: { status: string; plan: string }[] }>(
      page,
      '/admin/companies?limit=100',
    );
    const active = companies.filter((company) => company.status === 'active');
    const revenue = active.reduce((sum, company) => sum + monthlyPriceOf(company.plan), 0);
    const overview = (label: string) => platform.getByText(label, { exact: true }).locator('..');
    await expect(overview('Total Companies')).toContainText(String(companies.length));
    await expect(overview('Active Companies')).toContainText(String(active.length));
    await expect(overview('Pending Approvals')).toContainText(
      String(companies.filter((company) => company.status === 'pending').length),
    );
    await expect(overview('Total Revenue')).toContainText(
      `${PLAN_CURRENCY} ${(revenue / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })}K`,
    );
    await expect(page.getByRole('region', { name: 'Usage & Limits' })).toHaveCount(0);
    await expect(page.getByRole('region', { name: 'Billing Status' })).toHaveCount(0);
    const stats = await apiAs<TStats>(page, '/dashboard/stats');
    const { services } = await apiAs<{ services: unknown[] }>(page, '/admin/services');
    expect(stats.totalServices).toBe(services.length);
    await expect(card(page, 'Total Services').getByTestId('stat-value')).toHaveText(
      String(stats.totalServices),
    );
    await expect(page.getByRole('link', { name: 'Admin Panel' }).first()).toBeVisible();
    await screenshot(page, { path: `${SCREENS}/dashboard-system-admin.png`, fullPage: true });
  });

  test("Globex's admin sees Globex's figures, and a package ending in 5 days in red", async ({ page }) => {
    await signIn(page, 'owner@globex.example.com');
    await expect(page.getByText("Here's an overview of messaging at Globex Telecom.")).toBeVisible();
    await expect(card(page, 'Total Services').getByTestId('stat-value')).toHaveText('3');
    await expect(
      page.getByRole('region', { name: 'Billing Status' }).getByTestId('package-expiry'),
    ).toHaveAttribute('data-tone', 'danger');
  });
});

test.describe('dashboard loading and failure', () => {
  test('shows 4 skeleton rows while the figures load', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/v1/dashboard/stats', async (route) => {
      await held;
      await route.continue();
    });
    await page.reload();
    await expect(page.getByTestId('activity-skeleton')).toHaveCount(4);
    // Before the data: dashes, not the default limits that would read as real figures ("0 / 20").
    await expect(page.getByTestId('gauge-services')).toContainText('— / —');
    await expect(page.getByTestId('gauge-services')).not.toContainText('0 / 20');
    release();
    await expect(page.getByTestId('activity-skeleton')).toHaveCount(0);
  });

  test("a failed load toasts 'Failed to load dashboard data' and says so in Recent Activity", async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.route('**/api/v1/dashboard/stats', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, message: 'Internal error', error: 'internal' }),
      }),
    );
    await page.reload();
    await expect(page.getByText('Failed to load dashboard data')).toBeVisible({ timeout: 15_000 });
    const activity = page.getByRole('region', { name: 'Recent Activity' });
    await expect(activity.getByRole('listitem')).toHaveCount(1);
    await expect(activity.getByText('Unable to load recent activity')).toBeVisible();
    await screenshot(page, { path: `${SCREENS}/dashboard-failed.png`, fullPage: true });
  });
});
