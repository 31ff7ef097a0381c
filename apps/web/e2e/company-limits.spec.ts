import { callApi, createCompanyWithOwner, deleteCompany } from './api-setup.ts';
import { expect, test } from './fixtures.ts';
import { DEMO_USERS, sidebarLinks, signIn } from './sign-in.ts';

/**
 * A system admin gives a company a monthly message limit of its own in the company form (below
 * its plan's), and the company's next send that needs more is refused with that limit.
 */
const suffix = Date.now().toString(36);
const companyName = `Own Limits Co ${suffix}`;
const OWNER = `own-limits-${suffix}@limits.example.com`;

test.describe.configure({ mode: 'serial' });

let companyId: number;

test.beforeAll(async ({ request }) => {
  let owner: string;
  ({ companyId, ownerToken: owner } = await createCompanyWithOwner(
    request,
    {
      name: companyName,
      email: `ops-${suffix}@own-limits.example.com`,
      phoneNumber: '+254700111333',
      address: '3 Deal Street, Nairobi',
    },
    { name: 'Olive Owner', email: OWNER },
  ));
  const { service } = await callApi(request, owner, 'POST', '/services', {
    name: 'Deal News',
    shortcode: `7${String(Date.now() % 1_000_000).padStart(6, '0')}`.slice(0, 7),
    keyword: `DEAL${suffix}`.toUpperCase().slice(0, 20),
  });
  const csv = ['phone', '+254794000001', '+254794000002', '+254794000003'].join('\n');
  await callApi(request, owner, 'POST', `/services/${service.id}/subscribers/import`, { csv });
});

test.afterAll(async ({ request }) => deleteCompany(request, companyId));

test('a system admin sets a monthly message limit of the company’s own in the company form', async ({
  page,
}) => {
  await signIn(page, DEMO_USERS.systemAdmin);
  await sidebarLinks(page).filter({ hasText: 'Admin Panel' }).click();
  await page
    .getByPlaceholder(/Search/)
    .first()
    .fill(companyName);
  const row = page.getByTestId('company-row').filter({ hasText: companyName });
  await row.getByRole('button', { name: `Edit ${companyName}` }).click();
  const form = page.getByRole('dialog', { name: 'Edit Company', exact: true });
  const limits = form.getByRole('group', { name: 'Limits' });
  await expect(limits.getByText("Leave blank to use the plan's limit (10,000).")).toBeVisible();
  await limits.getByLabel('Monthly message limit').fill('2');
  await form.getByRole('button', { name: 'Update Company' }).click();
  await expect(form).toBeHidden();
  await expect(row.getByTestId('own-limits')).toHaveText('Own limits: Monthly message limit 2');
});

test('the company’s send needing more than its own limit is refused with that limit', async ({ page }) => {
  await signIn(page, OWNER);
  await page.goto('/messages');
  await page.getByRole('button', { name: 'Create Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create New Message' });
  await dialog.getByRole('checkbox', { name: /Deal News\b/ }).check();
  await dialog.getByRole('textbox', { name: 'Message' }).fill('Three recipients, a limit of two');
  const answer = page.waitForResponse('**/api/v1/messages/bulk/send');
  await dialog.getByRole('button', { name: 'Send Message Now' }).click();
  expect((await answer).status()).toBe(403);
  await expect(
    dialog.getByText(
      'This send needs 3 message(s), but the monthly message limit is 2 and 0 have been used this month',
    ),
  ).toBeVisible();
});
