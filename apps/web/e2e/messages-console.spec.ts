import path from 'node:path';
import { expect, type Locator, type Page, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

/** Screens a person looks at for these items (kept out of test-results, which each run empties). */
const SCREENS = path.resolve(import.meta.dirname, '../../../.tmp/screens');

const messagesTable = (page: Page) => page.getByRole('table', { name: 'Messages' });

async function openMessages(page: Page) {
  await signIn(page, DEMO_USERS.companyAdmin);
  await page.goto('/messages');
  await expect(messagesTable(page)).toBeVisible();
}

/** Whether the focused element lies inside `container`. */
const focusIsInside = (container: Locator) =>
  container.evaluate((element) => element.contains(document.activeElement));

function localDate(offsetDays: number) {
  const date = new Date(Date.now() + offsetDays * 86_400_000);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

test.describe('messages console', () => {
  test('dialogs take focus, keep Tab inside, close only the top one on Escape and give focus back', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    const opener = page.getByRole('button', { name: 'Manage Webhooks' });
    await opener.click();
    const modal = page.getByRole('dialog', { name: /^Callback URLs/ });
    await expect(modal.getByRole('button', { name: 'Regenerate URLs' })).toBeVisible();
    expect(await focusIsInside(modal)).toBe(true);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await focusIsInside(modal)).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await focusIsInside(modal)).toBe(true);

    const regenerate = modal.getByRole('button', { name: 'Regenerate URLs' });
    await regenerate.click();
    const confirm = page.getByRole('alertdialog', { name: 'Regenerate callback URLs' });
    await expect(confirm).toBeVisible();
    expect(await focusIsInside(confirm)).toBe(true);
    await screenshot(page, { path: `${SCREENS}/1-nested-confirmation.png` });
    // Escape closes the confirmation only; the URLs stay open, and focus goes back to its button.
    await page.keyboard.press('Escape');
    await expect(confirm).toHaveCount(0);
    await expect(modal).toBeVisible();
    await expect(regenerate).toBeFocused();

    const before = await modal
      .getByRole('textbox', { name: 'Delivery Report (DLR) Callback URL' })
      .inputValue();
    await regenerate.click();
    await confirm.getByRole('button', { name: 'Regenerate URLs' }).click();
    await expect(modal.getByRole('status')).toHaveText(
      'Callback URLs regenerated. Paste the new URLs into your SMS provider’s dashboard.',
    );
    await expect(modal.getByRole('textbox', { name: 'Delivery Report (DLR) Callback URL' })).not.toHaveValue(
      before,
    );
    await screenshot(page, { path: `${SCREENS}/1-regenerated-notice.png` });
    await page.keyboard.press('Escape');
    await expect(modal).toHaveCount(0);
    await expect(opener).toBeFocused();
  });

  test('Compose keeps a pasted text past 160 characters, says why and holds the send back', async ({
    page,
  }) => {
    await openMessages(page);
    await page.getByRole('button', { name: 'Create Message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Message' });
    await dialog.getByRole('checkbox', { name: /Daily News/ }).check();
    const message = dialog.getByRole('textbox', { name: 'Message' });
    await message.focus();
    const pasted = `${'Big sale this weekend only. '.repeat(8)}`.slice(0, 200);
    await page.keyboard.insertText(pasted);
    await expect(message).toHaveValue(pasted);
    await expect(dialog.getByTestId('message-counter')).toHaveText('200/160');
    await expect(dialog.getByTestId('message-counter')).toHaveAttribute('data-level', 'danger');
    const summary = dialog.getByRole('alert').filter({ hasText: 'Please fix the following errors:' });
    await expect(summary.getByRole('listitem')).toHaveText(['Message must be 160 characters or less']);
    await expect(dialog.getByRole('button', { name: 'Send Message Now' })).toBeDisabled();
    await summary.scrollIntoViewIfNeeded();
    await screenshot(page, { path: `${SCREENS}/2-compose-over-160.png` });

    // Cutting it back to 160 lets the send go.
    await message.fill(pasted.slice(0, 160));
    await expect(summary).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: 'Send Message Now' })).toBeEnabled();
  });

  test('the counter warns when Unicode costs more than one part and shows the total', async ({ page }) => {
    await openMessages(page);
    await page.getByRole('button', { name: 'Create Message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Message' });
    const sports = dialog.getByRole('checkbox', { name: /Sports Alerts/ });
    await sports.check();
    // The service's own line says how many active subscribers it has: the preview's count.
    const line = await dialog.locator('label').filter({ hasText: 'Sports Alerts' }).innerText();
    const subscribers = Number(/([\d,]+) active subscriber/.exec(line)?.[1].replaceAll(',', ''));
    expect(subscribers).toBeGreaterThan(0);

    const message = dialog.getByRole('textbox', { name: 'Message' });
    await message.fill('Goal! Match report tonight at 8.');
    await expect(dialog.getByTestId('sms-encoding')).toHaveText('GSM-7 · 1 SMS part');
    await expect(dialog.getByTestId('sms-unicode-warning')).toHaveCount(0);
    await expect(dialog.getByTestId('sms-total')).toHaveText(
      `Total: ${subscribers.toLocaleString('en-US')} recipients × 1 = ${subscribers.toLocaleString('en-US')} SMS`,
    );

    await message.fill(`Gooool in Łódź: ${'match report tonight at eight, '.repeat(3)}`);
    await expect(dialog.getByTestId('sms-encoding')).toHaveText('Unicode · 2 SMS parts');
    await expect(dialog.getByTestId('sms-unicode-warning')).toContainText(
      'each recipient receives 2 SMS parts',
    );
    await expect(dialog.getByTestId('sms-total')).toHaveText(
      `Total: ${subscribers.toLocaleString('en-US')} recipients × 2 = ${(subscribers * 2).toLocaleString('en-US')} SMS`,
    );
    await dialog.getByTestId('sms-total').scrollIntoViewIfNeeded();
    await screenshot(page, { path: `${SCREENS}/3-counter-unicode-total.png` });
  });

  test('a cancelled scheduled message stays in the list as Cancelled, with who and when', async ({
    page,
  }) => {
    await openMessages(page);
    await page.getByRole('button', { name: 'Create Message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Message' });
    await dialog.getByRole('checkbox', { name: /Daily News/ }).check();
    const text = `E2E cancel me ${Date.now().toString(36)}`;
    await dialog.getByRole('textbox', { name: 'Message' }).fill(text);
    await dialog.getByRole('radio', { name: 'Schedule' }).check();
    await dialog.getByLabel('Date', { exact: true }).fill(localDate(1));
    await dialog.getByLabel('Time', { exact: true }).fill('09:30');
    await dialog.getByRole('button', { name: 'Schedule Message' }).click();
    await expect(page.getByText('Message sent successfully!')).toBeVisible();

    const row = messagesTable(page).getByRole('row', { name: new RegExp(text) });
    const viewDetails = row.getByRole('button', { name: 'View Details' });
    await viewDetails.click();
    const details = page.getByRole('dialog', { name: 'Message Details' });
    await details.getByRole('button', { name: 'Cancel Scheduled Message' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Cancel scheduled message' });
    await expect(confirm).toBeVisible();
    await screenshot(page, { path: `${SCREENS}/4-cancel-confirmation.png` });
    await confirm.getByRole('button', { name: 'Cancel Message' }).click();
    await expect(page.getByText('Scheduled message cancelled')).toBeVisible();
    await expect(confirm).toHaveCount(0);
    await expect(details.getByTestId('cancelled-notice')).toContainText('Cancelled by ');
    await details.getByRole('button', { name: 'Close', exact: true }).last().click();
    await expect(details).toHaveCount(0);
    await expect(viewDetails).toBeFocused();

    // Under All Messages, and under the Cancelled status.
    await expect(page.getByRole('button', { name: /^All Messages/ })).toHaveAttribute('aria-pressed', 'true');
    await expect(row.locator('td:nth-child(5)')).toContainText('Cancelled');
    await expect(row.getByTestId('cancelled-by')).toHaveText(/^Cancelled by .+, .+/);
    await screenshot(page, { path: `${SCREENS}/4-cancelled-row.png`, fullPage: true });
    await page.getByRole('combobox', { name: 'Filter by status' }).selectOption('cancelled');
    await expect(row).toBeVisible();
    const statusCells = messagesTable(page).getByRole('row').locator('td:nth-child(5)');
    await expect(statusCells.filter({ hasNotText: 'Cancelled' })).toHaveCount(0);
  });

  test('Message Details of a big send: failures counted, filtered, and said in words', async ({ page }) => {
    await openMessages(page);
    await page.getByRole('combobox', { name: 'Filter by status' }).selectOption('delivered');
    const statusCells = messagesTable(page).getByRole('row').locator('td:nth-child(5)');
    await expect(statusCells.filter({ hasNotText: 'Delivered' })).toHaveCount(0);
    // The demo's delivered sends lose about one recipient in twenty: the biggest on the page has some.
    const rows = messagesTable(page)
      .getByRole('row')
      .filter({ hasText: /[\d,]+ recipients/ });
    const sizes = await rows.locator('td:nth-child(3) p:first-child').allInnerTexts();
    const biggest = sizes
      .map((text, index) => ({ index, n: Number(text.replace(/\D/g, '')) }))
      .sort((a, b) => b.n - a.n)[0];
    expect(biggest.n).toBeGreaterThan(20);
    await rows.nth(biggest.index).getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name: 'Message Details' });
    const summary = details.getByRole('heading', { name: 'Delivery Summary' }).locator('..');
    const failedText = await summary.getByText('Failed', { exact: true }).locator('..').innerText();
    const failed = Number(failedText.replace(/\D/g, ''));
    expect(failed).toBeGreaterThan(0);
    await expect(details.getByTestId('overview-status')).toHaveText(
      `Delivered, ${failed.toLocaleString('en-US')} failed`,
    );

    await screenshot(page, { path: `${SCREENS}/5-details-overview.png` });

    const recipients = details.getByRole('table', { name: 'Subscriber delivery status' });
    await details.getByRole('combobox', { name: 'Show' }).selectOption('failed');
    const recipientStatuses = recipients.getByRole('row').locator('td:nth-child(2)');
    await expect(recipientStatuses.first()).toHaveText('failed');
    await expect(recipientStatuses.filter({ hasNotText: 'failed' })).toHaveCount(0);
    // The demo's failures carry provider codes; each is said in words, the code below it.
    const errorCell = recipients.getByRole('row').nth(1).locator('td:nth-child(5)');
    await expect(errorCell).toContainText(
      /The phone was off|blocked messages from this sender|could not deliver|no credit left/,
    );
    await errorCell.scrollIntoViewIfNeeded();
    await screenshot(page, { path: `${SCREENS}/5-details-failed-filter.png` });

    await details.getByRole('combobox', { name: 'Show' }).selectOption('delivered');
    await expect(recipientStatuses.first()).toHaveText('delivered');
    await expect(recipientStatuses.filter({ hasNotText: 'delivered' })).toHaveCount(0);
  });

  test('a send in progress shows its hand-over on its row and in the details, updating without a reload', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await openMessages(page);
    await page.getByRole('button', { name: 'Create Message' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Message' });
    await dialog.getByRole('checkbox', { name: /Sports Alerts/ }).check();
    await dialog.getByRole('checkbox', { name: /Weather Updates/ }).check();
    const text = `E2E progress ${Date.now().toString(36)}`;
    await dialog.getByRole('textbox', { name: 'Message' }).fill(text);
    await dialog.getByRole('button', { name: 'Send Message Now' }).click();
    await expect(page.getByText('Message sent successfully!')).toBeVisible();

    const row = messagesTable(page).getByRole('row', { name: new RegExp(text) });
    const rowProgress = row.getByRole('progressbar', { name: 'Hand-over progress' });
    await expect(rowProgress).toBeVisible();
    await expect(rowProgress).toHaveAttribute('aria-valuetext', /^Handed over [\d,]+ of [\d,]+$/);
    await screenshot(page, { path: `${SCREENS}/10-row-progress.png` });
    await row.getByRole('button', { name: 'View Details' }).click();
    const details = page.getByRole('dialog', { name: 'Message Details' });
    const detailsProgress = details.getByRole('progressbar', { name: 'Hand-over progress' });
    await expect(detailsProgress).toBeVisible();
    const first = Number(await detailsProgress.getAttribute('aria-valuenow'));
    await screenshot(page, { path: `${SCREENS}/10-details-progress.png` });
    // No reload: the open details move on by themselves until the send has been handed over.
    await expect
      .poll(
        async () =>
          (await detailsProgress.count()) === 0 ||
          Number(await detailsProgress.getAttribute('aria-valuenow')) > first,
        {
          timeout: 60_000,
        },
      )
      .toBe(true);
    await expect(details.getByTestId('overview-status')).toContainText(/Sent|Delivered/, { timeout: 60_000 });
    await details.getByRole('button', { name: 'Close', exact: true }).last().click();
    await expect(rowProgress).toHaveCount(0);
    await expect(row.locator('td:nth-child(5)')).toContainText(/Sent|Delivered/);
  });
});
