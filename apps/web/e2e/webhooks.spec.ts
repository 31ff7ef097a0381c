import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WEBHOOK_MESSAGES } from '@sms/contracts/webhooks/webhook';
import { expect, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const screen = (name: string) => path.resolve(import.meta.dirname, `../../../.tmp/screens/${name}.png`);

/** A receiver on 127.0.0.1 (the server allows it: PROVIDER_ALLOWED_PRIVATE_HOSTS) that checks signatures as the README says. */
async function startReceiver() {
  const seen: { type: string; verified: boolean }[] = [];
  let secret = '';
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parts = Object.fromEntries(
        String(request.headers['webhook-signature'] ?? '')
          .split(',')
          .map((part) => part.split('=', 2)),
      );
      const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
      const given = Buffer.from(parts.v1 ?? '', 'hex');
      const fresh = Math.abs(Date.now() / 1000 - Number(parts.t)) <= 300;
      const verified = fresh && given.length === expected.length && timingSafeEqual(given, expected);
      for (const event of JSON.parse(body).events) seen.push({ type: event.type, verified });
      response.writeHead(verified ? 200 : 400).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms-events`,
    seen,
    acceptSecret: (value: string) => {
      secret = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('a company admin adds a webhook endpoint, sees its secret once, sends a test event and reads its deliveries', async ({
  page,
}) => {
  const receiver = await startReceiver();
  try {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page
      .getByRole('region', { name: 'Quick Actions' })
      .getByRole('link', { name: 'Webhook Endpoints' })
      .click();
    await expect(page).toHaveURL(/\/settings\/webhooks$/);
    await expect(page.getByRole('heading', { name: 'Webhook Endpoints' })).toBeVisible();

    await page.getByRole('button', { name: 'Add Endpoint' }).click();
    const form = page.getByRole('dialog', { name: 'Add Webhook Endpoint' });
    // Nothing filled in: the form says what is missing and sends nothing.
    await form.getByRole('button', { name: 'Add Endpoint' }).click();
    await expect(form.getByText(WEBHOOK_MESSAGES.urlRequired)).toBeVisible();
    await expect(form.getByText(WEBHOOK_MESSAGES.eventsRequired)).toBeVisible();
    // A private address is refused by the server, with its reason.
    await form.getByLabel('Endpoint URL').fill('https://10.1.2.3/hooks');
    await form.getByRole('checkbox', { name: /Message delivered/ }).check();
    await form.getByRole('button', { name: 'Add Endpoint' }).click();
    await expect(form.getByRole('alert')).toContainText(WEBHOOK_MESSAGES.urlNotPublic);

    await form.getByLabel('Endpoint URL').fill(receiver.url);
    await form.getByLabel('Description').fill('CRM sync');
    await form.getByRole('checkbox', { name: /Subscriber subscribed/ }).check();
    await screenshot(page, { path: screen('webhooks-create') });
    await form.getByRole('button', { name: 'Add Endpoint' }).click();

    const created = page.getByRole('dialog', { name: 'Webhook Endpoint Added' });
    await expect(created.getByText(WEBHOOK_MESSAGES.secretShownOnce)).toBeVisible();
    const secret = await created.getByRole('textbox').inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.acceptSecret(secret);
    await screenshot(page, { path: screen('webhooks-secret') });
    await created.getByRole('button', { name: 'Done' }).click();

    const row = page.getByRole('row', { name: new RegExp(receiver.url) });
    await expect(row).toContainText('Enabled');
    await expect(row).toContainText('Message delivered');
    await expect(row).toContainText('Subscriber subscribed');
    await expect(page.getByText(secret)).toHaveCount(0);

    // On a busy server the deliveries list, read as the test starts (before the delivery is
    // stored), can answer after the test has: that read must not be the list's last word. The
    // route holds the first read's answer (still empty: a new endpoint) until the console has
    // taken the test's answer and refreshes its lists.
    let testAnswered = false;
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && response.url().endsWith('/test')) testAnswered = true;
    });
    const refreshedAfterTheTest = page.waitForRequest(
      (request) => testAnswered && request.method() === 'GET' && request.url().endsWith('/api/v1/webhooks'),
    );
    await page.route(
      '**/api/v1/webhooks/*/deliveries',
      async (route) => {
        await refreshedAfterTheTest;
        // The console may have dropped that read meanwhile (its request aborted): nothing to answer.
        await route.fulfill({ json: { success: true, data: { deliveries: [] } } }).catch(() => {});
      },
      { times: 1 },
    );
    await row.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByText(`${WEBHOOK_MESSAGES.testSent}: HTTP 200`)).toBeVisible();
    expect(receiver.seen).toEqual([{ type: 'webhook.test', verified: true }]);
    const deliveries = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
    await expect(deliveries.getByRole('row', { name: /Test event/ })).toContainText('200');
    await screenshot(page, { path: screen('webhooks-deliveries') });

    // Edit the events; disable and enable it again.
    await row.getByRole('button', { name: `Edit ${receiver.url}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Webhook Endpoint' });
    await edit.getByRole('checkbox', { name: /Message failed/ }).check();
    await edit.getByRole('button', { name: 'Save Endpoint' }).click();
    await expect(row).toContainText('Message failed');
    await row.getByRole('button', { name: 'Disable' }).click();
    await expect(row).toContainText('Disabled by an admin');
    await row.getByRole('button', { name: 'Enable' }).click();
    await expect(row).toContainText('Enabled');

    await row.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete Webhook Endpoint' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect(row).toHaveCount(0);
  } finally {
    await receiver.close();
  }
});

test('only a company admin opens the webhook endpoints page', async ({ page }) => {
  await signIn(page, DEMO_USERS.contentManager);
  await expect(
    page.getByRole('region', { name: 'Quick Actions' }).getByRole('link', { name: 'Webhook Endpoints' }),
  ).toHaveCount(0);
  await page.goto('/settings/webhooks');
  await expect(page.getByText('Only company administrators manage webhook endpoints.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add Endpoint' })).toHaveCount(0);
});
