import { expect, type Page, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const SCREENS = 'test-results/screens';

function localDate(offsetDays: number) {
  const date = new Date(Date.now() + offsetDays * 86_400_000);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

async function openMessages(page: Page, who: string = DEMO_USERS.companyAdmin) {
  await signIn(page, who);
  await page.goto('/messages');
  await expect(page.getByRole('heading', { name: 'Message Logs' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Messages' })).toBeVisible();
}

const messagesTable = (page: Page) => page.getByRole('table', { name: 'Messages' });

test.describe('messages', () => {
  test('a company admin sends to two services and every recipient is delivered through the simulator', async ({
    page,
  }) => {
    // Up to a minute for 1,500 recipients to be handed over and reported on a busy machine.
    test.setTimeout(120_000);
    await openMessages(page);
    await expect(page.getByText('Review all inbound and outbound messages for Acme Mobile.')).toBeVisible();
    await expect(page.getByText('Company Scoped')).toBeVisible();
    await screenshot(page, { path: `${SCREENS}/messages-list.png`, fullPage: true });

    await page.getByRole('button', { name: 'Create Message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Message' });
    await expect(
      dialog.getByText('Send messages to your company subscribers instantly or schedule for later'),
    ).toBeVisible();
    await dialog.getByRole('button', { name: 'Send Message Now' }).click();
    const summary = dialog.getByRole('alert').filter({ hasText: 'Please fix the following errors:' });
    await expect(summary.getByRole('listitem')).toHaveText([
      'Please select at least one service',
      'Please enter a message',
    ]);
    await expect(dialog.getByRole('button', { name: 'Send Message Now' })).toBeDisabled();
    await screenshot(page, { path: `${SCREENS}/create-message-errors.png` });

    await dialog.getByRole('checkbox', { name: /Sports Alerts/ }).check();
    await dialog.getByRole('checkbox', { name: /Weather Updates/ }).check();
    await expect(dialog.getByText('2 service(s) selected')).toBeVisible();
    const text = `E2E match day ${Date.now().toString(36)}: kick-off at 8`;
    await dialog.getByRole('textbox', { name: 'Message' }).fill(text);
    await expect(dialog.getByTestId('message-counter')).toHaveText(`${text.length}/160`);
    await expect(dialog.getByTestId('sms-encoding')).toHaveText('GSM-7 · 1 SMS part');
    await expect(summary).toHaveCount(0);
    await screenshot(page, { path: `${SCREENS}/create-message-filled.png` });
    await dialog.getByRole('button', { name: 'Send Message Now' }).click();
    await expect(page.getByText('Message sent successfully!')).toBeVisible();
    await expect(dialog).toHaveCount(0);

    const row = messagesTable(page).getByRole('row').nth(1);
    await expect(row).toContainText(text);
    await expect(row).toContainText(/Service: (Sports Alerts|Weather Updates) \+1 more/);
    await expect(row).toContainText(/Queued #[0-9a-f]{8}(?![0-9a-f-])/);
    await row.getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name: 'Message Details' });
    await expect(details.getByText(text)).toBeVisible();
    // The modal refreshes itself while the send is going out; the simulator reports each recipient.
    const overview = details.getByRole('heading', { name: 'Overview' }).locator('..');
    await expect(overview.getByText('Delivered', { exact: true })).toBeVisible({ timeout: 60_000 });
    await expect(overview.getByText('completed', { exact: true })).toBeVisible();
    const deliverySummary = details.getByRole('heading', { name: 'Delivery Summary' }).locator('..');
    await expect(deliverySummary).toContainText(/Sent0Delivered[1-9][\d,]*Failed[\d,]+Pending0/);
    const recipients = details.getByRole('table', { name: 'Subscriber delivery status' });
    await expect(recipients.getByRole('row').nth(1)).toContainText(/\+25471\d{7}/);
    await expect(recipients.getByText('delivered').first()).toBeVisible();
    await expect(details.getByRole('navigation', { name: 'Pagination' })).toContainText('recipients');
    await screenshot(page, { path: `${SCREENS}/message-details.png` });
    await deliverySummary.scrollIntoViewIfNeeded();
    await screenshot(page, { path: `${SCREENS}/message-details-recipients.png` });
    await details.getByRole('button', { name: 'Close', exact: true }).last().click();
    await expect(row).toContainText('Delivered');
  });

  test('a company admin schedules a message for later and cancels it', async ({ page }) => {
    await openMessages(page);
    await page.getByRole('button', { name: 'Create Message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Message' });
    await dialog.getByRole('checkbox', { name: /Daily News/ }).check();
    const text = `E2E digest ${Date.now().toString(36)}`;
    await dialog.getByRole('textbox', { name: 'Message' }).fill(text);
    await dialog.getByRole('radio', { name: 'Schedule' }).check();
    await expect(dialog.getByLabel('Date', { exact: true })).toHaveAttribute('min', localDate(0));
    await dialog.getByRole('button', { name: 'Schedule Message' }).click();
    const summary = dialog.getByRole('alert').filter({ hasText: 'Please fix the following errors:' });
    await expect(summary.getByRole('listitem')).toHaveText(['Please select a date', 'Please select a time']);
    await dialog.getByLabel('Date', { exact: true }).fill(localDate(1));
    await dialog.getByLabel('Time', { exact: true }).fill('09:30');
    await expect(summary).toHaveCount(0);
    await screenshot(page, { path: `${SCREENS}/create-message-schedule.png` });
    await dialog.getByRole('button', { name: 'Schedule Message' }).click();
    await expect(page.getByText('Message sent successfully!')).toBeVisible();

    const row = messagesTable(page).getByRole('row', { name: new RegExp(text) });
    await expect(row).toContainText('Scheduled');
    await expect(row).toContainText('Scheduled:');
    await row.getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name: 'Message Details' });
    await expect(details.getByText('delayed', { exact: true })).toBeVisible();
    await details.getByRole('button', { name: 'Cancel Scheduled Message' }).click();
    await page
      .getByRole('alertdialog', { name: 'Cancel scheduled message' })
      .getByRole('button', { name: 'Cancel Message' })
      .click();
    await expect(page.getByText('Scheduled message cancelled')).toBeVisible();
    // The message is kept: the details and then its row read Cancelled.
    await expect(details.getByTestId('cancelled-notice')).toBeVisible();
    await details.getByRole('button', { name: 'Close', exact: true }).last().click();
    await expect(details).toHaveCount(0);
    await expect(row).toContainText('Cancelled');
  });

  test('the chips, filters and search narrow the list on the server, and Clear All Filters resets them', async ({
    page,
  }) => {
    await openMessages(page);
    const table = messagesTable(page);
    const statusCells = table.getByRole('row').locator('td:nth-child(5)');

    await page.getByRole('button', { name: /^Scheduled Messages/ }).click();
    await expect(page.getByRole('region', { name: 'Active Filters' })).toContainText(
      'Quick filter: Scheduled Messages',
    );
    await expect(statusCells.first()).toHaveText('Scheduled');
    await expect(statusCells.filter({ hasNotText: 'Scheduled' })).toHaveCount(0);

    await page.getByRole('combobox', { name: 'Filter by status' }).selectOption('failed');
    await expect(page.getByRole('button', { name: /^All Messages/ })).toHaveAttribute('aria-pressed', 'true');
    await expect(statusCells.first()).toHaveText('Failed');
    await expect(statusCells.filter({ hasNotText: 'Failed' })).toHaveCount(0);

    await page.getByRole('combobox', { name: 'Filter by status' }).selectOption('');
    await page.getByRole('combobox', { name: 'Filter by direction' }).selectOption('inbound');
    await expect(table.getByRole('row').nth(1)).toContainText('Inbound');
    await expect(table.getByRole('button', { name: 'View Details' })).toHaveCount(0);

    await page.getByRole('combobox', { name: 'Filter by direction' }).selectOption('');
    const allCount = await page.getByText(/^Page 1 of/).textContent();
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('KICK-OFF');
    await expect(page.getByText(/^Page 1 of/)).not.toHaveText(allCount ?? '');
    const contentCells = table.getByRole('row').locator('td:nth-child(4)');
    await expect(contentCells.first()).toContainText(/kick-off/i);
    await expect(contentCells.filter({ hasNotText: /kick-off/i })).toHaveCount(0);
    const bar = page.getByRole('region', { name: 'Active Filters' });
    await expect(bar).toContainText('Search: "KICK-OFF"');
    await screenshot(page, { path: `${SCREENS}/messages-filtered.png`, fullPage: true });
    await bar.getByRole('button', { name: 'Clear All Filters' }).click();
    await expect(bar).toHaveCount(0);
    await expect(page.getByRole('searchbox', { name: 'Search messages' })).toHaveValue('');
    await expect(page.getByText('Page 1 of')).toBeVisible();
  });

  test('a content manager reads the logs but cannot send', async ({ page }) => {
    await openMessages(page, DEMO_USERS.contentManager);
    await expect(page.getByRole('button', { name: 'Create Message' })).toBeDisabled();
    await expect(page.getByText('Content managers can view messages but cannot send them')).toBeVisible();
  });
});
