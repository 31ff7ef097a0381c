import path from 'node:path';
import { expect, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
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
    await screenshot(page, { path: `${SCREENS}/09-plural-subscribers.png` });
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
    await screenshot(page, { path: `${SCREENS}/09-session-expired.png` });
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
  await screenshot(page, { path: `${SCREENS}/09-create-message-held-company.png` });
});

test.describe('on a 390-pixel-wide phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the message and subscriber tables stack into cards: status and actions show without sideways scrolling', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    // Neither the page nor the table's own scroller is wider than the screen.
    const fitsTheScreen = (name: string) =>
      page
        .getByRole('table', { name })
        .evaluate(
          (table) =>
            document.documentElement.scrollWidth <= document.documentElement.clientWidth &&
            (table.parentElement?.scrollWidth ?? 0) <= (table.parentElement?.clientWidth ?? 0),
        );

    await page.goto('/messages?direction=outbound');
    const message = page.getByRole('table', { name: 'Messages' }).locator('tbody tr').first();
    const details = message.getByRole('button', { name: 'View Details' });
    await details.scrollIntoViewIfNeeded();
    await expect(details).toBeInViewport();
    await expect(message.locator('td[data-label="Status"]')).toBeInViewport();
    expect(await fitsTheScreen('Messages')).toBe(true);
    const box = (await details.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await message.scrollIntoViewIfNeeded();
    await screenshot(page, { path: `${SCREENS}/09-phone-messages.png` });

    await page.goto('/subscribers?status=active');
    const subscriber = page.getByRole('table', { name: 'Subscribers' }).locator('tbody tr').first();
    const unsubscribe = subscriber.getByRole('button', { name: /^Unsubscribe/ });
    await unsubscribe.scrollIntoViewIfNeeded();
    await expect(unsubscribe).toBeInViewport();
    await expect(subscriber.locator('td[data-label="Status"]')).toBeInViewport();
    expect(await fitsTheScreen('Subscribers')).toBe(true);
    expect(
      (await unsubscribe.boundingBox())!.x + (await unsubscribe.boundingBox())!.width,
    ).toBeLessThanOrEqual(390);
    await subscriber.scrollIntoViewIfNeeded();
    await screenshot(page, { path: `${SCREENS}/09-phone-subscribers.png` });
  });
});

test.describe('dates', () => {
  test.use({ timezoneId: 'Africa/Nairobi', locale: 'en-US' });

  test('one date format across pages, and scheduled sends name the time zone', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/subscribers');
    const joined = page
      .getByRole('table', { name: 'Subscribers' })
      .locator('td[data-label="Joined"]')
      .first();
    await expect(joined).toHaveText(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/);
    await page.goto('/services');
    await expect(page.getByRole('table').locator('tbody tr').first()).toContainText(
      /[A-Z][a-z]{2} \d{1,2}, \d{4}/,
    );

    await page.goto('/messages?chip=scheduled');
    const scheduled = page.getByRole('table', { name: 'Messages' }).locator('tbody tr').first();
    await expect(scheduled).toContainText(
      /Scheduled: [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M GMT\+3/,
    );
    await expect(scheduled.locator('td[data-label="Timestamp"] p').first()).toHaveText(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M$/,
    );
    await screenshot(page, { path: `${SCREENS}/09-dates-scheduled.png` });
  });
});

test('while the dashboard loads, its gauges show dashes, never figures that look real', async ({ page }) => {
  await signIn(page, DEMO_USERS.companyAdmin);
  // Hold the dashboard's answer (the real one, later) to see the page while it loads.
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/api/v1/dashboard/**', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/dashboard');
  const usage = page.getByRole('region', { name: 'Usage & Limits' });
  await expect(usage.getByText('— / —')).toHaveCount(3);
  await expect(usage).not.toContainText(/\d/);
  const billing = page.getByRole('region', { name: 'Billing Status' });
  await expect(billing.getByText('—')).toHaveCount(3);
  await expect(billing).not.toContainText('Active');
  await screenshot(page, { path: `${SCREENS}/08-dashboard-loading.png` });
  release();
  await expect(usage.getByTestId('gauge-messages')).toContainText(/[\d,]+ \/ [\d,]+/);
});

test('a subscriber import shows the rows read as the upload goes, then what it imported', async ({
  page,
}) => {
  test.setTimeout(90_000);
  // Soylent Media: a company no other spec counts subscribers of.
  await signIn(page, 'owner@soylent.example.com');
  await page.goto('/subscribers');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import Subscribers' });
  await dialog.getByLabel('Service').selectOption({ index: 1 });
  // 30,001 lines: two new numbers among lines the import reads and refuses, so the demo data barely moves.
  const lines = ['phone', '+254748800001', '+254748800002'];
  for (let line = 0; line < 29_998; line++) lines.push(`not-a-number-${line}`);
  await dialog.getByLabel('CSV file').setInputFiles({
    name: 'numbers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`${lines.join('\n')}\n`),
  });
  // A slow uplink (Chromium's own throttling), so the upload takes a few seconds to watch.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 150_000,
  });
  await dialog.getByRole('button', { name: 'Import' }).click();
  const progress = dialog.getByTestId('import-progress');
  await expect(progress).toHaveText(/^Rows read: [1-9][\d,]* of 30,001$/);
  await screenshot(page, { path: `${SCREENS}/10-import-progress.png` });
  await expect(
    dialog.getByRole('region', { name: 'Import summary' }).or(dialog.getByLabel('Import summary')),
  ).toBeVisible({
    timeout: 60_000,
  });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  const summary = dialog.getByLabel('Import summary');
  await expect(summary).toContainText('Imported2');
  await screenshot(page, { path: `${SCREENS}/10-import-done.png` });
});

test('dashboard cards: a 0% trend shows no triangle, "New" none either, and the others point the way they moved', async ({
  page,
}) => {
  await signIn(page, DEMO_USERS.viewer);
  const token = await page.evaluate(() => localStorage.getItem('accessToken'));
  const { data } = await (
    await page.request.get('/api/v1/dashboard/stats', { headers: { authorization: `Bearer ${token}` } })
  ).json();
  const cards = page.getByRole('region', { name: 'Headline figures' });
  for (const [name, key] of [
    ['Total Services', 'totalServices'],
    ['Active Services', 'activeServices'],
    ['Total Subscribers', 'totalSubscribers'],
    ['Messages Sent', 'totalMessages'],
  ] as const) {
    const trend = data.trends[key] as { change: number | null } | null;
    const badge = cards.getByRole('article', { name }).getByTestId('trend');
    if (!trend) continue;
    if (trend.change === null || trend.change === 0) await expect(badge).not.toContainText(/[▲▼]/);
    if (trend.change === null) await expect(badge).toContainText('New');
    if (trend.change === 0) await expect(badge).toContainText('0%');
    if (trend.change !== null && trend.change > 0) await expect(badge).toContainText('▲');
    if (trend.change !== null && trend.change < 0) await expect(badge).toContainText('▼');
  }
  // The demo company's service count did not move this month: the case the issue names.
  expect(data.trends.totalServices.change).toBe(0);
  await screenshot(page, { path: `${SCREENS}/08-dashboard-trends.png` });
});
