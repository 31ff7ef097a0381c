import path from 'node:path';
import { MERGE_FIELD_MESSAGES } from '@sms/contracts/templates/merge-fields';
import { expect, type Page, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const screen = (name: string) => path.resolve(import.meta.dirname, `../../../.tmp/screens/${name}.png`);
const subscribersTable = (page: Page) => page.getByRole('table', { name: 'Subscribers' });

/** A service of its own, so the send's recipients are exactly the numbers the test imports. */
async function createService(page: Page, suffix: string) {
  await page.goto('/services');
  await page.getByRole('button', { name: 'Add Service' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create Service' });
  await dialog.getByLabel('Service Name').fill(`E2E Names ${suffix}`);
  await dialog.getByLabel('Short Code').fill(`N${suffix}`.slice(0, 8));
  await dialog.getByLabel('Keyword').fill(`NAMES${suffix}`);
  await dialog.getByRole('button', { name: 'Create Service' }).click();
  await expect(dialog).toHaveCount(0);
}

test('a company admin imports names, edits one, saves a template and sends it with a preview of three real recipients', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const suffix = Date.now().toString(36).slice(-5).toUpperCase();
  await signIn(page, DEMO_USERS.companyAdmin);
  await createService(page, suffix);

  // Import: the header's other columns become the subscribers' merge fields.
  await page.goto('/subscribers');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const importer = page.getByRole('dialog', { name: 'Import Subscribers' });
  await importer
    .getByLabel('Service')
    .selectOption({ label: `E2E Names ${suffix} (N${suffix} NAMES${suffix})` });
  await importer.getByLabel('CSV file').setInputFiles({
    name: 'names.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(
      'phone,First Name,Language\n0797300001,Amina,sw\n0797300002,,en\n0797300003,Bartholomew Kiprono,\n',
    ),
  });
  await importer.getByRole('button', { name: 'Import' }).click();
  await expect(importer.getByTestId('import-fields')).toHaveText(
    'Fields set from the file: first_name, language',
  );
  await screenshot(page, { path: screen('templates-import-fields') });
  await importer.getByRole('button', { name: 'Done' }).click();

  // The list shows each subscriber's fields; one is edited on the subscriber.
  await page.getByRole('searchbox', { name: 'Search by phone number' }).fill('7973000');
  const amina = subscribersTable(page).getByRole('row', { name: /\+254797300001/ });
  await expect(amina.getByText('first_name: Amina')).toBeVisible();
  await expect(amina.getByText('language: sw')).toBeVisible();
  await subscribersTable(page).getByRole('button', { name: 'Edit fields of +254797300002' }).click();
  const fields = page.getByRole('dialog', { name: 'Fields of +254797300002' });
  await expect(fields.getByLabel('Value of language')).toHaveValue('en');
  await fields.getByLabel('Value of first_name').fill('Chebet');
  await screenshot(page, { path: screen('templates-subscriber-fields') });
  await fields.getByRole('button', { name: 'Save Fields' }).click();
  await expect(page.getByText('Fields of +254797300002 saved')).toBeVisible();
  await expect(
    subscribersTable(page)
      .getByRole('row', { name: /\+254797300002/ })
      .getByText('first_name: Chebet'),
  ).toBeVisible();
  await screenshot(page, { path: screen('templates-subscriber-list') });

  // A template with a fallback, from Message Logs' Templates page.
  await page.goto('/messages');
  await page.getByRole('link', { name: 'Templates' }).click();
  await expect(page).toHaveURL(/\/messages\/templates$/);
  await expect(page.getByRole('heading', { name: 'Message Templates' })).toBeVisible();
  await page.getByRole('button', { name: 'New Template' }).click();
  const form = page.getByRole('dialog', { name: 'New Template' });
  await form.getByLabel('Name').fill(`Order ready ${suffix}`);
  await form.getByLabel('Text').fill('Hi {{First Name}}');
  await form.getByRole('button', { name: 'Save Template' }).click();
  await expect(form.getByText(MERGE_FIELD_MESSAGES.placeholderInvalid('{{First Name}}'))).toBeVisible();
  await form.getByLabel('Text').fill('Hi ');
  await form.getByRole('button', { name: 'first_name' }).click();
  await form.getByLabel('Text').press('End');
  await form.getByLabel('Text').pressSequentially(', your order is ready.');
  await expect(form.getByLabel('Text')).toHaveValue('Hi {{first_name|friend}}, your order is ready.');
  await expect(form.getByTestId('template-form-preview')).toContainText('first_name · friend');
  await screenshot(page, { path: screen('templates-form') });
  await form.getByRole('button', { name: 'Save Template' }).click();
  await expect(page.getByText('Template saved')).toBeVisible();
  const row = page
    .getByRole('table', { name: 'Templates' })
    .getByRole('row', { name: new RegExp(`Order ready ${suffix}`) });
  await expect(row).toContainText('first_name · friend');
  await screenshot(page, { path: screen('templates-page') });

  // Create Message starts from it: the counter is the longest text's, the preview three real recipients'.
  await page.getByRole('link', { name: 'Back to Messages' }).click();
  await page.getByRole('button', { name: 'Create Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create New Message' });
  await dialog.getByLabel('Start from a template').selectOption({ label: `Order ready ${suffix}` });
  await expect(dialog.getByRole('textbox', { name: 'Message' })).toHaveValue(
    'Hi {{first_name|friend}}, your order is ready.',
  );
  await dialog.getByRole('checkbox', { name: new RegExp(`E2E Names ${suffix}`) }).check();
  const preview = dialog.getByTestId('merge-preview');
  await expect(preview.getByRole('listitem')).toHaveCount(3);
  await expect(preview.getByRole('listitem').nth(0)).toContainText('Hi Amina, your order is ready.');
  await expect(preview.getByRole('listitem').nth(1)).toContainText('Hi Chebet, your order is ready.');
  await expect(preview.getByRole('listitem').nth(2)).toContainText(
    'Hi Bartholomew Kiprono, your order is ready.',
  );
  // "Hi , your order is ready." (25) + "Bartholomew Kiprono" (19).
  await expect(dialog.getByTestId('message-counter')).toHaveText('Longest: 44/160');
  await expect(dialog.getByTestId('sms-total')).toContainText('3 recipients × 1 = 3 SMS');
  await preview.scrollIntoViewIfNeeded();
  await screenshot(page, { path: screen('templates-create-message') });

  // Longer than 160 for the longest name only: refused before it is sent.
  const message = dialog.getByRole('textbox', { name: 'Message' });
  await message.fill(`${'x'.repeat(132)} {{first_name}}`);
  await expect(dialog.getByTestId('message-counter')).toHaveText('Longest: 152/160');
  // 160 characters as typed, 165 with the longest name.
  await message.fill(`${'x'.repeat(145)} {{first_name}}`);
  await expect(dialog.getByTestId('message-counter')).toHaveText('Longest: 165/160');
  await expect(dialog.getByText(MERGE_FIELD_MESSAGES.longestTooLong(165))).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Send Message Now' })).toBeDisabled();
  await dialog.getByText('Please fix the following errors:').scrollIntoViewIfNeeded();
  await screenshot(page, { path: screen('templates-create-message-too-long') });

  await dialog.getByLabel('Start from a template').selectOption({ label: 'Blank message' });
  await dialog.getByLabel('Start from a template').selectOption({ label: `Order ready ${suffix}` });
  await dialog.getByRole('button', { name: 'Send Message Now' }).click();
  await expect(page.getByText('Message sent successfully!')).toBeVisible();
});

test('a content manager starts from templates but does not change them', async ({ page }) => {
  await signIn(page, DEMO_USERS.contentManager);
  await page.goto('/messages/templates');
  await expect(page.getByRole('heading', { name: 'Message Templates' })).toBeVisible();
  await expect(page.getByText('Merge fields', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New Template' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Edit / })).toHaveCount(0);
});
