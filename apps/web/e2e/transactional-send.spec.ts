import { expect, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const SCREENS = 'test-results/screens';

test.describe('transactional sends', () => {
  test('a text posted to POST /messages with `to` shows in Message Logs and its details', async ({
    page,
  }) => {
    test.setTimeout(60_000);
    await signIn(page, DEMO_USERS.companyAdmin);
    const token = await page.evaluate(() => localStorage.getItem('accessToken'));
    const headers = { authorization: `Bearer ${token}` };
    const listed = await page.request.get('/api/v1/services?status=active', { headers });
    const service = (await listed.json()).data.services.find(
      (candidate: { status: string }) => candidate.status === 'active',
    );
    expect(service).toBeTruthy();

    const run = Date.now().toString(36);
    const text = `E2E code ${run}`;
    const sent = await page.request.post('/api/v1/messages', {
      headers: { ...headers, 'idempotency-key': `e2e-otp-${run}` },
      data: { to: ['0799111222', '+254799111222', 'nope'], message: text, serviceId: service.id },
    });
    expect(sent.status(), await sent.text()).toBe(201);
    expect((await sent.json()).data.recipients).toEqual([
      { to: '+254799111222', status: 'queued' },
      { to: 'nope', status: 'invalid', reason: 'nope is not a valid phone number' },
    ]);

    await page.goto('/messages');
    const table = page.getByRole('table', { name: 'Messages' });
    const row = table.getByRole('row').filter({ hasText: text });
    await expect(row).toBeVisible();
    await expect(row).toContainText(`Service: ${service.name}`);
    await row.getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name: 'Message Details' });
    await expect(details.getByText(text)).toBeVisible();
    const recipients = details.getByRole('table', { name: 'Subscriber delivery status' });
    await expect(recipients).toContainText('+254799111222');
    await screenshot(page, { path: `${SCREENS}/transactional-send-details.png` });
  });
});
