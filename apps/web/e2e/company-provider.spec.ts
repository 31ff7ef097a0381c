import { expect, type Locator, type Page, test } from './fixtures.ts';
import { DEMO_USERS, sidebarLinks, signIn } from './sign-in.ts';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;
/** The provider part of the form (the dialog scrolls, so the whole dialog would be cut). */
const shot = async (form: Locator, name: string) => {
  if (SHOTS)
    await form.getByRole('group', { name: 'SMS provider' }).screenshot({ path: `${SHOTS}/${name}.png` });
};

const stamp = Date.now().toString(36);
const companyName = `Provider Co ${stamp}`;

const dialog = (page: Page, name: string) => page.getByRole('dialog', { name, exact: true });
const companyRow = (page: Page) => page.getByTestId('company-row').filter({ hasText: companyName });

async function openAdmin(page: Page) {
  await sidebarLinks(page).filter({ hasText: 'Admin Panel' }).click();
  await expect(page.getByRole('heading', { name: 'Admin Panel' })).toBeVisible();
}

test("a system admin edits a company's provider per kind and sees the API key masked after a reload", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signIn(page, DEMO_USERS.systemAdmin);
  await openAdmin(page);

  await page.getByRole('button', { name: 'Add Company' }).click();
  const create = dialog(page, 'Add Company');
  await create.getByLabel('Company Name').fill(companyName);
  await create.getByLabel('Email').fill(`provider-${stamp}@example.test`);
  await create.getByLabel('Phone Number').fill('+254700123456');
  await create.getByLabel('Address').fill('2 Provider Road, Nairobi');

  // Each kind shows its own fields.
  await expect(create.getByLabel('Provider')).toHaveValue('simulator');
  await expect(create.getByLabel('Acceptance rate (0 to 1)')).toBeVisible();
  await shot(create, 'provider-simulator');
  await create.getByLabel('Provider').selectOption({ label: 'SMPP' });
  await expect(create.getByLabel('Host')).toBeVisible();
  await expect(create.getByLabel('Bind mode')).toHaveValue('transceiver');
  await expect(create.getByLabel('API Key')).toHaveCount(0);
  await shot(create, 'provider-smpp');
  await create.getByLabel('Provider').selectOption({ label: "Africa's Talking" });
  await expect(create.getByLabel('Host')).toHaveCount(0);

  // The contract's rules, before anything is sent.
  await create.getByLabel('Environment').selectOption({ label: 'Custom base URL' });
  await create.getByRole('button', { name: 'Create Company' }).click();
  await expect(create.getByText("API Username is required for Africa's Talking")).toBeVisible();
  await expect(create.getByText('Base URL is required for a custom environment')).toBeVisible();

  await create.getByLabel('Environment').selectOption({ label: 'Sandbox' });
  await create.getByLabel('API Username').fill('sandbox');
  await create.getByLabel('API Key').fill('atsk-e2e-0123456789');
  await create.getByLabel('Sender ID / short code').fill('22384');
  await shot(create, 'provider-africastalking');
  await create.getByRole('button', { name: 'Create Company' }).click();
  await expect(create).toBeHidden();
  await expect(page.getByText('Company created successfully!')).toBeVisible();

  // After a reload, the form shows the kind, its settings, and the key only masked.
  await page.reload();
  await page.getByRole('searchbox', { name: 'Search companies' }).fill(stamp);
  await companyRow(page)
    .getByRole('button', { name: `Edit ${companyName}` })
    .click();
  const edit = dialog(page, 'Edit Company');
  await expect(edit.getByLabel('Provider')).toHaveValue('africastalking');
  await expect(edit.getByLabel('API Username')).toHaveValue('sandbox');
  await expect(edit.getByLabel('Environment')).toHaveValue('sandbox');
  await expect(edit.getByLabel('Sender ID / short code')).toHaveValue('22384');
  await expect(edit.getByLabel('API Key')).toHaveValue('');
  await expect(edit.getByText('Current: ••••••••6789. Leave blank to keep it.')).toBeVisible();
  await expect(edit).not.toContainText('atsk-e2e');
  await shot(edit, 'provider-africastalking-edit');

  // Saving with the key left blank keeps it.
  await edit.getByLabel('Batch size').fill('250');
  await edit.getByRole('button', { name: 'Update Company' }).click();
  await expect(edit).toBeHidden();
  await companyRow(page)
    .getByRole('button', { name: `Edit ${companyName}` })
    .click();
  const again = dialog(page, 'Edit Company');
  await expect(again.getByLabel('Batch size')).toHaveValue('250');
  await expect(again.getByText('Current: ••••••••6789. Leave blank to keep it.')).toBeVisible();
  await again.getByRole('button', { name: 'Cancel' }).click();
});

test("a system admin sets an SMPP company's message ID type, and sees it kept after a reload", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const name = `SMPP Ids Co ${stamp}`;
  await signIn(page, DEMO_USERS.systemAdmin);
  await openAdmin(page);

  await page.getByRole('button', { name: 'Add Company' }).click();
  const create = dialog(page, 'Add Company');
  await create.getByLabel('Company Name').fill(name);
  await create.getByLabel('Email').fill(`smpp-ids-${stamp}@example.test`);
  await create.getByLabel('Phone Number').fill('+254700123457');
  await create.getByLabel('Address').fill('3 Provider Road, Nairobi');
  await create.getByLabel('Provider').selectOption({ label: 'SMPP' });
  // By default receipts match the id in either form.
  await expect(create.getByLabel('Message ID type')).toHaveValue('auto');
  await create.getByLabel('Host').fill('smsc.example.net');
  await create.getByLabel('System ID').fill('ids');
  await create.getByLabel('Password').fill('pw-ids1');
  await create.getByLabel('Message ID type').selectOption({ label: 'Hex in response, decimal in receipt' });
  await shot(create, 'provider-smpp-message-id-type');
  await create.getByRole('button', { name: 'Create Company' }).click();
  await expect(create).toBeHidden();

  await page.reload();
  await page.getByRole('searchbox', { name: 'Search companies' }).fill(name);
  await page
    .getByTestId('company-row')
    .filter({ hasText: name })
    .getByRole('button', { name: `Edit ${name}` })
    .click();
  const edit = dialog(page, 'Edit Company');
  await expect(edit.getByLabel('Provider')).toHaveValue('smpp');
  await expect(edit.getByLabel('Message ID type')).toHaveValue('hex_decimal');
  await edit.getByRole('button', { name: 'Cancel' }).click();
});
