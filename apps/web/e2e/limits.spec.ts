import { callApi, createCompanyWithOwner, deleteCompany } from './api-setup.ts';
import { expect, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { signIn } from './sign-in.ts';

/**
 * Each plan limit refused through the console, for a company set up through the API on the basic
 * plan (20 services, 5,000 active subscribers, 10,000 messages a month): it is filled to its
 * services and subscribers limits, then the console tries one more of each, and a send that needs
 * more messages than the month has left.
 */
const SCREENS = 'test-results/screens';
const suffix = Date.now().toString(36);
const OWNER = `limits-${suffix}@limits.example.com`;
const NEW_NUMBERS = ['0791000001', '0791000002', '0791000003'];

test.describe.configure({ mode: 'serial' });

let companyId: number;

test.beforeAll(async ({ request }) => {
  let owner: string;
  ({ companyId, ownerToken: owner } = await createCompanyWithOwner(
    request,
    {
      name: `Limits Co ${suffix}`,
      email: `ops-${suffix}@limits.example.com`,
      phoneNumber: '+254700111222',
      address: '1 Plan Street, Nairobi',
    },
    { name: 'Lima Owner', email: OWNER },
  ));
  const ids: number[] = [];
  for (let i = 1; i <= 20; i++) {
    const { service } = await callApi(request, owner, 'POST', '/services', {
      name: `Limit Service ${i}`,
      shortcode: `8${String(Date.now() % 1_000_000).padStart(6, '0')}`.slice(0, 7),
      keyword: `L${suffix}X${i}`,
    });
    ids.push(service.id);
  }
  // 5,000 active subscribers on the first service: the basic plan's limit.
  const csv = [
    'phone',
    ...Array.from({ length: 5_000 }, (_, i) => `+2547930${String(i).padStart(5, '0')}`),
  ].join('\n');
  const report = await callApi(request, owner, 'POST', `/services/${ids[0]}/subscribers/import`, { csv });
  expect(report).toMatchObject({ imported: 5_000, refusedByLimit: 0 });
});

test.afterAll(async ({ request }) => deleteCompany(request, companyId));

test('a 21st service is refused with the limit named, and the gauge shows 20 / 20', async ({ page }) => {
  await signIn(page, OWNER);
  const services = page.getByTestId('gauge-services');
  await expect(services).toContainText('20 / 20');
  await expect(services).toContainText('Near Limit');
  await expect(page.getByTestId('gauge-subscribers')).toContainText('5,000 / 5,000');

  await page.goto('/services');
  await page.getByRole('button', { name: 'Add Service' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create Service' });
  await dialog.getByLabel('Service Name').fill('One Too Many');
  await dialog.getByLabel('Short Code').fill('99999');
  await dialog.getByLabel('Keyword').fill(`MANY${suffix}`);
  await dialog.getByRole('button', { name: 'Create Service' }).click();
  await expect(
    dialog.getByText(
      'Your plan allows 20 service(s) and all of them are in use: delete a service or ask for a higher services limit',
    ),
  ).toBeVisible();
  await screenshot(page, { path: `${SCREENS}/limit-services.png` });
});

test('a new subscriber is refused at the limit, and an import reports the rows it refused', async ({
  page,
}) => {
  await signIn(page, OWNER);
  await page.goto('/subscribers');
  await page.getByRole('button', { name: 'Subscribe Number' }).click();
  const subscribe = page.getByRole('dialog', { name: 'Subscribe a Number' });
  await subscribe.getByLabel('Phone Number').fill(NEW_NUMBERS[0]);
  await subscribe.getByLabel('Service').selectOption({ index: 1 });
  await subscribe.getByRole('button', { name: 'Subscribe' }).click();
  await expect(
    subscribe.getByText(
      'Your plan allows 5000 active subscriber(s) and all of them are in use: this number cannot be subscribed',
    ),
  ).toBeVisible();
  await screenshot(page, { path: `${SCREENS}/limit-subscribe.png` });
  await subscribe.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import Subscribers' });
  await dialog.getByLabel('Service').selectOption({ index: 1 });
  await dialog.getByLabel('CSV file').setInputFiles({
    name: 'more.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(['phone', ...NEW_NUMBERS, '+254793000001'].join('\n')),
  });
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect(
    dialog.getByText("3 row(s) were refused: the plan's limit of 5000 active subscriber(s) was reached"),
  ).toBeVisible();
  await screenshot(page, { path: `${SCREENS}/limit-import.png` });
});

test('a send needing more messages than the month has left is refused with the monthly limit', async ({
  page,
}) => {
  // The send path counts the recipients first, and right after the 5,000-row import (before
  // autovacuum has analyzed the tables) that count is known to take tens of seconds.
  test.setTimeout(120_000);
  await signIn(page, OWNER);
  await page.goto('/messages');
  await page.getByRole('button', { name: 'Create Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create New Message' });
  await dialog.getByRole('checkbox', { name: /Limit Service 1\b/ }).check();
  // Unicode text: 3 SMS parts for each of the 5,000 recipients, past the 10,000 of the month.
  await dialog.getByRole('textbox', { name: 'Message' }).fill(`Habari 👋 ${'ü'.repeat(140)}`);
  const started = Date.now();
  const answer = page.waitForResponse('**/api/v1/messages/bulk/send', { timeout: 100_000 });
  await dialog.getByRole('button', { name: 'Send Message Now' }).click();
  expect((await answer).status()).toBe(403);
  console.log(`send refused after ${Date.now() - started} ms`);
  await expect(
    dialog.getByText(/the monthly message limit is 10,000 and 0 have been used this month/),
  ).toBeVisible();
  await screenshot(page, { path: `${SCREENS}/limit-messages.png` });
});
