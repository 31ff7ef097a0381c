import { expect, type Locator, type Page, test } from './fixtures.ts';
import { DEMO_USERS, sidebarLinks, signIn } from './sign-in.ts';

const SHOTS = process.env.E2E_SCREENSHOTS_DIR;
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
};

const stamp = Date.now().toString(36);
const companyName = `E2E Company ${stamp}`;
const renamedCompany = `E2E Renamed ${stamp}`;
const userEmail = `e2e-user-${stamp}@example.test`;
const secondUserEmail = `e2e-second-${stamp}@example.test`;

const dialog = (page: Page, name: string) => page.getByRole('dialog', { name, exact: true });
/** Confirmations are alert dialogs (WAI-ARIA): they interrupt and ask. */
const alertDialog = (page: Page, name: string) => page.getByRole('alertdialog', { name, exact: true });
const companyRow = (page: Page, name: string) => page.getByTestId('company-row').filter({ hasText: name });
const userRow = (page: Page, email: string) => page.getByTestId('user-row').filter({ hasText: email });

async function searchCompanies(page: Page, text: string) {
  await page.getByRole('searchbox', { name: 'Search companies' }).fill(text);
}

async function confirm(page: Page, title: string, message: string | RegExp, button: string) {
  const box = alertDialog(page, title);
  await expect(box).toContainText(message);
  await box.getByRole('button', { name: button, exact: true }).click();
  await expect(box).toBeHidden();
}

async function fillUserForm(
  form: Locator,
  values: { name: string; email: string; password?: string; company?: string },
) {
  await form.getByLabel('Name').fill(values.name);
  await form.getByLabel('Email').fill(values.email);
  if (values.password !== undefined) await form.getByLabel('Password').fill(values.password);
  if (values.company) await form.getByLabel('Company').selectOption({ label: values.company });
}

test.describe.configure({ mode: 'serial' });

test('a system admin manages companies, users and callback URLs, and finds it all in the audit log', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  await signIn(page, DEMO_USERS.systemAdmin);
  await sidebarLinks(page).filter({ hasText: 'Admin Panel' }).click();
  await expect(page.getByRole('heading', { name: 'Admin Panel' })).toBeVisible();
  await expect(page.getByText('Total Companies')).toBeVisible();
  await expect(page.getByTestId('company-row').first()).toBeVisible();
  await shot(page, '01-companies-tab');

  // Create (as pending, so it can be activated).
  await page.getByRole('button', { name: 'Add Company' }).click();
  const create = dialog(page, 'Add Company');
  await expect(create.getByRole('button', { name: 'Create Company' })).toBeDisabled();
  await create.getByLabel('Company Name').fill(companyName);
  await create.getByLabel('Email').fill('bad-address');
  await create.getByLabel('Phone Number').fill('+254700123456');
  await create.getByLabel('Address').fill('1 E2E Road, Nairobi');
  await create.getByLabel('Status').selectOption('pending');
  await create.getByLabel('Provider').selectOption({ label: "Africa's Talking" });
  await create.getByLabel('API Username').fill('e2e-user');
  await create.getByLabel('API Key').fill('e2e-provider-key-9876');
  await create.getByRole('button', { name: 'Create Company' }).click();
  await expect(create.getByText('Please enter a valid email address')).toBeVisible();
  await create.getByLabel('Email').fill(`ops-${stamp}@example.test`);
  await shot(page, '02-company-form');
  await create.getByRole('button', { name: 'Create Company' }).click();
  await expect(create).toBeHidden();
  await expect(page.getByText('Company created successfully!')).toBeVisible();
  await searchCompanies(page, stamp);
  await expect(companyRow(page, companyName)).toContainText('pending');

  // Edit: rename; the stored API key shows masked.
  await companyRow(page, companyName)
    .getByRole('button', { name: `Edit ${companyName}` })
    .click();
  const edit = dialog(page, 'Edit Company');
  await expect(edit.getByText('Current: ••••••••9876. Leave blank to keep it.')).toBeVisible();
  await edit.getByLabel('Company Name').fill(renamedCompany);
  await edit.getByRole('button', { name: 'Update Company' }).click();
  await expect(edit).toBeHidden();
  await expect(companyRow(page, renamedCompany)).toBeVisible();

  // Activate (pending only); suspending (active only) follows the callback URLs, which only an
  // active company's URLs validate.
  const row = companyRow(page, renamedCompany);
  await expect(row.getByRole('button', { name: /^Suspend/ })).toHaveCount(0);
  await row.getByRole('button', { name: `Activate ${renamedCompany}` }).click();
  await expect(row).toContainText('active');

  // Callback URLs: regenerate, the old URL stops validating.
  await row.getByRole('button', { name: `Callback URLs of ${renamedCompany}` }).click();
  const modal = dialog(page, `Callback URLs - ${renamedCompany}`);
  const subscriptionUrl = modal.getByRole('textbox', { name: 'Subscription Callback URL' });
  await expect(subscriptionUrl).toHaveValue(/\/api\/v1\/callbacks\/subscription\/\d+\/[\w-]{43}$/);
  await expect(modal.getByRole('textbox', { name: 'Delivery Report (DLR) Callback URL' })).toHaveValue(
    /\/callbacks\/dlr\//,
  );
  await expect(modal.getByRole('heading', { name: 'How to configure your SMS provider' })).toBeVisible();
  await expect(modal.getByRole('button', { name: 'Copy Subscription Callback URL' })).toBeEnabled();
  await shot(page, '03-callback-modal');
  const oldUrl = await subscriptionUrl.inputValue();
  const companyId = oldUrl.split('/').at(-2)!;
  const validate = async (url: string) => {
    const path = url.slice(url.indexOf('/api/v1/callbacks/') + '/api/v1/callbacks/'.length);
    const response = await request.get(`/api/v1/callbacks/validate/${path}`);
    expect(response.ok()).toBe(true);
    return (await response.json()).data.valid as boolean;
  };
  expect(await validate(oldUrl)).toBe(true);
  await modal.getByRole('button', { name: 'Regenerate URLs' }).click();
  await confirm(page, 'Regenerate callback URLs', /stop working immediately/, 'Regenerate URLs');
  await expect(subscriptionUrl).not.toHaveValue(oldUrl);
  const newUrl = await subscriptionUrl.inputValue();
  expect(await validate(oldUrl)).toBe(false);
  expect(await validate(newUrl)).toBe(true);
  await modal.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(modal).toBeHidden();

  // Suspend (active only, after confirmation).
  await row.getByRole('button', { name: `Suspend ${renamedCompany}` }).click();
  await confirm(page, 'Suspend company', 'Are you sure you want to suspend this company?', 'Suspend');
  await expect(row).toContainText('suspended');

  // Users: create, edit, delete.
  await page.getByRole('tab', { name: 'Users' }).click();
  await expect(page.getByRole('heading', { name: 'User Management' })).toBeVisible();
  await page.getByRole('button', { name: 'Add User' }).click();
  const addUser = dialog(page, 'Add User');
  await expect(addUser.getByLabel('Role')).toHaveValue('viewer');
  await addUser.getByRole('button', { name: 'Create User' }).click();
  await expect(addUser.getByText('Please fill all required fields').first()).toBeVisible();
  await fillUserForm(addUser, {
    name: 'Erin Example',
    email: userEmail,
    password: 'E2e-password-1',
    company: renamedCompany,
  });
  await addUser.getByLabel('Role').selectOption('content_manager');
  await shot(page, '04-user-form');
  await addUser.getByRole('button', { name: 'Create User' }).click();
  await expect(addUser).toBeHidden();
  await page.getByRole('searchbox', { name: 'Search users' }).fill(stamp);
  await expect(userRow(page, userEmail)).toContainText(renamedCompany);
  await expect(userRow(page, userEmail)).toContainText('content manager');

  await userRow(page, userEmail).getByRole('button', { name: 'Edit Erin Example' }).click();
  const editUser = dialog(page, 'Edit User');
  await editUser.getByLabel('Name').fill('Erin Edited');
  await editUser.getByLabel('Status').selectOption('suspended');
  await editUser.getByRole('button', { name: 'Update User' }).click();
  await expect(editUser).toBeHidden();
  await expect(userRow(page, userEmail)).toContainText('Erin Edited');
  await expect(userRow(page, userEmail)).toContainText('suspended');

  // A duplicate e-mail is refused with the server's message.
  await page.getByRole('button', { name: 'Add User' }).click();
  const duplicate = dialog(page, 'Add User');
  await fillUserForm(duplicate, {
    name: 'Dup',
    email: userEmail,
    password: 'E2e-password-1',
    company: renamedCompany,
  });
  await duplicate.getByRole('button', { name: 'Create User' }).click();
  await expect(duplicate.getByRole('alert')).toHaveText('A user with this email already exists');
  await fillUserForm(duplicate, { name: 'Second User', email: secondUserEmail });
  await duplicate.getByRole('button', { name: 'Create User' }).click();
  await expect(duplicate).toBeHidden();
  await shot(page, '05-users-tab');

  await userRow(page, userEmail).getByRole('button', { name: 'Delete Erin Edited' }).click();
  await confirm(page, 'Delete user', 'Are you sure you want to delete this user?', 'Delete');
  await expect(userRow(page, userEmail)).toHaveCount(0);
  await expect(userRow(page, secondUserEmail)).toBeVisible();

  // Delete the company: it still has a user, so a second confirmation names what goes with it.
  await page.getByRole('tab', { name: 'Companies' }).click();
  await searchCompanies(page, stamp);
  await companyRow(page, renamedCompany)
    .getByRole('button', { name: `Delete ${renamedCompany}` })
    .click();
  await confirm(
    page,
    'Delete company',
    'Are you sure you want to delete this company? This action cannot be undone.',
    'Delete',
  );
  await expect(alertDialog(page, 'Delete company and all its data')).toContainText(
    'This company still has 1 user',
  );
  await shot(page, '06-delete-cascade');
  await confirm(page, 'Delete company and all its data', /still has 1 user/, 'Delete everything');
  await expect(page.getByText('No companies found')).toBeVisible();

  // The audit log shows every one of those actions.
  await sidebarLinks(page).filter({ hasText: 'Audit Log' }).click();
  await expect(page.getByRole('heading', { name: 'Audit Log' })).toBeVisible();
  await expect(page.getByTestId('audit-row').first()).toBeVisible();
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel('From').fill(today);
  await page.getByLabel('To').fill(today);
  await shot(page, '07-audit-log');
  const rowsFor = async (action: string, entity: string) => {
    await page.getByLabel('Action').selectOption(action);
    await page.getByLabel('Entity').selectOption(entity);
    return page.getByTestId('audit-row');
  };
  for (const action of ['CREATE', 'UPDATE', 'APPROVE', 'SUSPEND', 'REGENERATE', 'DELETE']) {
    const rows = await rowsFor(action, 'COMPANY');
    await expect(rows.filter({ hasText: `COMPANY #${companyId}` }).first(), action).toBeVisible();
  }
  for (const action of ['CREATE', 'UPDATE', 'DELETE']) {
    const rows = await rowsFor(action, 'USER');
    await expect(rows.filter({ hasText: userEmail }).first(), `${action} USER`).toBeVisible();
  }
  const logins = await rowsFor('LOGIN', 'USER');
  await expect(logins.filter({ hasText: DEMO_USERS.systemAdmin }).first()).toBeVisible();
  // A day without entries shows the empty state.
  await page.getByLabel('Action').selectOption('');
  await page.getByLabel('Entity').selectOption('');
  await page.getByLabel('From').fill('2001-01-01');
  await page.getByLabel('To').fill('2001-01-02');
  await expect(page.getByText('No audit logs found')).toBeVisible();
});

test('a company admin sees their own callback URLs via Manage Webhooks but cannot reach the admin screens', async ({
  page,
}) => {
  await signIn(page, DEMO_USERS.companyAdmin);
  // The demo seed generated the company's URLs; the my-company endpoint serves them to its admin.
  const own = await page.evaluate(async () => {
    const response = await fetch('/api/v1/callbacks/my-company', {
      headers: { Authorization: `Bearer ${localStorage.getItem('accessToken')}` },
    });
    return (await response.json()).data;
  });
  expect(own.companyName).toBe('Acme Mobile');
  expect(own.dlrCallbackUrl).toMatch(new RegExp(`/api/v1/callbacks/dlr/${own.companyId}/[\\w-]{43}$`));
  // The dashboard's Manage Webhooks opens the same URLs in the modal.
  await page.getByRole('button', { name: 'Manage Webhooks' }).click();
  const modal = dialog(page, 'Callback URLs - Acme Mobile');
  await expect(modal.getByRole('textbox', { name: 'Delivery Report (DLR) Callback URL' })).toHaveValue(
    own.dlrCallbackUrl,
  );
  await modal.getByRole('button', { name: 'Close', exact: true }).click();

  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
  await page.goto('/admin/audit');
  await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
});
