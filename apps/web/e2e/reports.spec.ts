import path from 'node:path';
import { expect, type Page, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const SCREENS = 'test-results/screens';

const pointsDrawn = (page: Page, series: 'sent' | 'received') =>
  page
    .locator(`[data-series="${series}"]`)
    .getAttribute('d')
    .then((d) => d?.match(/[ML]/g)?.length ?? 0);

async function apiReport(page: Page, timeframe: string) {
  const token = await page.evaluate(() => localStorage.getItem('accessToken'));
  const response = await page.request.get(`/api/v1/reports?timeframe=${timeframe}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()).data as {
    kpis: { id: string; value: number | null }[];
    messageVolume: { sent: number; received: number }[];
  };
}

test.describe('reports', () => {
  test('switch timeframes: 7 days first, then 24 hours and 30 days, each with its own figures', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/reports')) requests.push(new URL(request.url()).search);
    });
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Reports' })
      .click();
    await expect(page.getByRole('heading', { name: 'Reports & Analytics' })).toBeVisible();
    await expect(page.getByText('Visualize your messaging performance and trends.')).toBeVisible();
    await expect(page.getByRole('button', { name: '7 Days' })).toHaveAttribute('aria-pressed', 'true');

    const sent = page.getByTestId('kpi-messages_sent').getByTestId('kpi-value');
    const week = await apiReport(page, '7d');
    const weekSent = week.kpis.find((kpi) => kpi.id === 'messages_sent')!.value!;
    await expect(sent).toHaveText(weekSent.toLocaleString('en-US'));
    expect(weekSent).toBeGreaterThan(0);
    await expect.poll(() => pointsDrawn(page, 'sent')).toBe(7);
    expect(await pointsDrawn(page, 'received')).toBe(7);
    await expect(page.getByTestId('kpi-messages_sent').getByTestId('trend')).toContainText(/[▲▼]/);
    await expect(page.getByRole('list', { name: 'Legend' })).toHaveText(/Sent\s*Received/);
    await screenshot(page, { path: `${SCREENS}/reports-7d.png`, fullPage: true });

    await page.getByRole('button', { name: '24 Hours' }).click();
    await expect(page.getByRole('button', { name: '24 Hours' })).toHaveAttribute('aria-pressed', 'true');
    const day = await apiReport(page, '24h');
    await expect(sent).toHaveText(
      day.kpis.find((kpi) => kpi.id === 'messages_sent')!.value!.toLocaleString('en-US'),
    );
    await expect.poll(() => pointsDrawn(page, 'sent')).toBe(24);
    expect(await pointsDrawn(page, 'received')).toBe(24);
    await expect(page.getByTestId('x-label').first()).toHaveText(/^\d\d:00$/);

    await page.getByRole('button', { name: '30 Days' }).click();
    const month = await apiReport(page, '30d');
    await expect(sent).toHaveText(
      month.kpis.find((kpi) => kpi.id === 'messages_sent')!.value!.toLocaleString('en-US'),
    );
    await expect.poll(() => pointsDrawn(page, 'sent')).toBe(30);
    expect(month.messageVolume.some((point) => point.received > 0)).toBe(true);
    expect(requests).toEqual(['?timeframe=7d', '?timeframe=24h', '?timeframe=30d']);

    // Hovering a day reads out both series for it.
    const chart = page.getByTestId('message-volume-chart');
    const box = (await chart.boundingBox())!;
    await chart.hover({ position: { x: box.width * 0.6, y: box.height / 2 } });
    const readout = page.getByTestId('chart-readout');
    await expect(readout).toContainText(/Sent: [\d,]+/);
    await expect(readout).toContainText(/Received: [\d,]+/);
    await expect(page.getByTestId('chart-cursor')).toBeVisible();
    await screenshot(page, { path: `${SCREENS}/reports-30d-hover.png`, fullPage: true });
    await page.mouse.move(0, 0);
    await expect(page.getByTestId('chart-cursor')).toHaveCount(0);
  });

  test('the chart reads out day by day from the keyboard, has a name and a table, and the demo week varies', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.goto('/reports');
    const chart = page.getByRole('slider', { name: /Message Volume: sent and received per day/ });
    await expect(chart).toBeVisible();
    await chart.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const readout = page.getByTestId('chart-readout');
    await expect(readout).toContainText(/Sent: [\d,]+/);
    await expect(chart).toHaveAttribute('aria-valuenow', '1');
    await expect(chart).toHaveAttribute(
      'aria-valuetext',
      /^\w{3}, \w{3} \d+, \d{4}: Sent [\d]+, Received [\d]+$/,
    );
    await screenshot(page, {
      path: path.resolve(import.meta.dirname, '../../../.tmp/screens/08-reports-chart-keyboard.png'),
      fullPage: true,
    });

    const week = await apiReport(page, '7d');
    const table = page.getByRole('table', { name: 'Message Volume per day (UTC)' });
    await expect(table.locator('tbody tr')).toHaveCount(week.messageVolume.length);

    // The demo data is a working week with a campaign, not the same figure every day: busy days and
    // quiet ones (a week holds a weekend). Not the campaign day against the median: when it falls on
    // a weekend it is 1.3 times a weekday (Sunday 29 November: 5,659 against 4,377), and only other
    // specs' sends of the same day, on the same server, lifted the busiest day past 1.5 times.
    const sent = week.messageVolume.map((point) => point.sent).sort((a, b) => a - b);
    expect(new Set(sent).size).toBeGreaterThanOrEqual(4);
    expect(sent.at(-1)!).toBeGreaterThan(2 * sent[0]);
  });

  test("viewers read their company's report, named in the subtitle and a badge", async ({ page }) => {
    await signIn(page, DEMO_USERS.viewer);
    await page.goto('/reports');
    await expect(page.getByText('View messaging performance and trends for Acme Mobile.')).toBeVisible();
    await expect(page.getByTestId('company-badge')).toHaveText('Acme Mobile');
    await expect(page.getByTestId('kpi-delivery_rate').getByTestId('kpi-value')).toHaveText(/^\d+(\.\d)?%$/);
  });

  test("a failed load replaces the page with 'Failed to fetch report data.'", async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.route('**/api/v1/reports?*', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, message: 'Bad', error: 'bad_request' }),
      }),
    );
    await page.goto('/reports');
    await expect(page.getByText('Failed to fetch report data.')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Reports & Analytics' })).toHaveCount(0);
  });

  test("shows 'Loading...' while the report is on its way", async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/v1/reports?*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/reports');
    await expect(page.getByText('Loading...')).toBeVisible();
    release();
    await expect(page.getByText('Loading...')).toHaveCount(0);
    await expect(page.getByTestId('message-volume-chart')).toBeVisible();
  });
});
