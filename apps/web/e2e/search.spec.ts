import path from 'node:path';
import { expect, type Page, test } from './fixtures.ts';
import { screenshot } from './screens.ts';
import { DEMO_USERS, signIn } from './sign-in.ts';

const SCREENS = 'test-results/screens';
const NEW_SCREENS = path.resolve(import.meta.dirname, '../../../.tmp/screens');
const GLOBEX_ADMIN = 'owner@globex.example.com';

const box = (page: Page) => page.getByRole('combobox', { name: 'Search' });
const group = (page: Page, name: string) =>
  page.getByRole('listbox', { name: 'Search results' }).getByRole('group', { name });

/** One active subscriber of the signed-in user's company, read through the API. */
async function aSubscriberNumber(page: Page) {
  const token = await page.evaluate(() => localStorage.getItem('accessToken'));
  const response = await page.request.get('/api/v1/subscriptions/subscribers?status=active&limit=10', {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()).data.subscribers[0].msisdn as string;
}

test.describe('top-bar search', () => {
  test("'/' focuses it; typing groups the company's services, and Enter opens the service's form", async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await page.keyboard.press('/');
    await expect(box(page)).toBeFocused();
    await page.keyboard.type('weather');
    const services = group(page, 'Services');
    await expect(services.getByRole('option')).toHaveText([/Weather Updates/]);
    await screenshot(page, { path: `${SCREENS}/search-results.png` });
    await page.keyboard.press('ArrowDown');
    await expect(services.getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/services$/);
    const form = page.getByRole('dialog', { name: 'Edit Service' });
    await expect(form.getByLabel('Service Name')).toHaveValue('Weather Updates');
  });

  test('a phone number opens the subscribers list filtered to it', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    const msisdn = await aSubscriberNumber(page);
    await page.keyboard.press('Control+k');
    await expect(box(page)).toBeFocused();
    // National form, as people type it: 0 and the last nine digits.
    await page.keyboard.type(`0${msisdn.slice(-9)}`);
    const subscribers = group(page, 'Subscribers');
    await expect(subscribers.getByRole('option')).toHaveText([new RegExp(msisdn.replace('+', '\\+'))]);
    await subscribers.getByRole('option').click();
    await expect(page).toHaveURL(/\/subscribers\?search=/);
    await expect(page.getByRole('searchbox', { name: 'Search by phone number' })).toHaveValue(msisdn);
    await expect(page.getByRole('row', { name: new RegExp(msisdn.replace('+', '\\+')) })).toBeVisible();
    await expect(page.getByRole('table').getByRole('row')).toHaveCount(2);
  });

  test('message content finds messages, and choosing one opens its details', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await box(page).fill('renews tomorrow');
    const messages = group(page, 'Messages');
    await expect(messages.getByRole('option').first()).toContainText('renews tomorrow');
    await box(page).press('ArrowDown');
    await box(page).press('Enter');
    await expect(page).toHaveURL(/\/messages$/);
    await expect(page.getByRole('dialog', { name: /Message Details/ })).toBeVisible();
    await expect(page.getByRole('dialog', { name: /Message Details/ })).toContainText('renews tomorrow');
  });

  test('Escape closes the results, a second Escape clears the box', async ({ page }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await box(page).fill('news');
    await expect(group(page, 'Services').getByRole('option').first()).toBeVisible();
    await box(page).press('Escape');
    await expect(page.getByRole('listbox', { name: 'Search results' })).toHaveCount(0);
    await expect(box(page)).toHaveValue('news');
    await box(page).press('Escape');
    await expect(box(page)).toHaveValue('');
  });

  test("one company's user never finds another company's services, subscribers or messages", async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    const acmeNumber = await aSubscriberNumber(page);
    await page.getByRole('button', { name: 'User menu for Amina' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/login$/);

    await signIn(page, GLOBEX_ADMIN);
    await box(page).fill('Daily News');
    await expect(page.getByText('No results for "Daily News"')).toBeVisible();
    await box(page).fill(acmeNumber);
    await expect(page.getByText(`No results for "${acmeNumber}"`)).toBeVisible();
    // Their own services are found.
    await box(page).fill('market');
    await expect(group(page, 'Services').getByRole('option')).toHaveText([/Market Prices/]);
    // Content both companies send: only Globex's own messages come back.
    await box(page).fill('renews tomorrow');
    const options = group(page, 'Messages').getByRole('option');
    await expect(options.first()).toBeVisible();
    const token = await page.evaluate(() => localStorage.getItem('accessToken'));
    const api = await page.request.get('/api/v1/search?q=renews%20tomorrow', {
      headers: { authorization: `Bearer ${token}` },
    });
    const { data } = await api.json();
    expect(data.messages.length).toBeGreaterThan(0);
    expect(data.messages.every((m: { companyName: string }) => m.companyName === 'Globex Telecom')).toBe(
      true,
    );
  });

  test('a content manager finds services and messages but no subscribers; a viewer is told search is not for them', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.contentManager);
    await box(page).fill('sports');
    await expect(group(page, 'Services').getByRole('option')).toHaveText([/Sports Alerts/]);
    await box(page).fill('0710');
    await expect(page.getByText('No results for "0710"')).toBeVisible();
    await expect(group(page, 'Subscribers')).toHaveCount(0);
    await box(page).fill('sports');
    // Enter before the results came: the first one opens when they do.
    await box(page).press('Enter');
    // View only: the list narrows to the service instead of opening its form.
    await expect(page).toHaveURL(/\/services/);
    await expect(page.getByRole('dialog', { name: 'Edit Service' })).toHaveCount(0);
    await expect(page.getByRole('row', { name: /Sports Alerts/ })).toBeVisible();
    await expect(page.getByRole('row', { name: /Daily News/ })).toHaveCount(0);

    await page.getByRole('button', { name: 'User menu for Brian' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await signIn(page, DEMO_USERS.viewer);
    // Said at once, before any typing: the box finds nothing for this role.
    await expect(page.getByTestId('search-unavailable')).toHaveText('Not available for your role');
    await box(page).focus();
    await expect(page.getByRole('status').filter({ hasText: /which your role cannot open/ })).toBeVisible();
    await expect(box(page)).not.toBeEditable();
    await screenshot(page, { path: `${NEW_SCREENS}/07-search-viewer.png` });
  });

  test('the last digits of a number find its subscriber, and the box says what it finds before typing', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.companyAdmin);
    await box(page).focus();
    await expect(page.getByRole('status')).toHaveText('Finds services, subscribers by number and messages');
    await box(page).fill('1809');
    const subscribers = group(page, 'Subscribers');
    await expect(subscribers.getByRole('option')).toHaveText([/\+254710001809/]);
    await expect(group(page, 'Companies')).toHaveCount(0);
    await screenshot(page, { path: `${NEW_SCREENS}/07-search-last-digits.png` });
  });

  test('a system admin finds companies by name and users by e-mail, and choosing one opens it', async ({
    page,
  }) => {
    await signIn(page, DEMO_USERS.systemAdmin);
    await box(page).fill('globex');
    const companies = group(page, 'Companies');
    await expect(companies.getByRole('option')).toHaveText([/Globex Telecom/]);
    await screenshot(page, { path: `${NEW_SCREENS}/07-search-companies.png` });
    await companies.getByRole('option').click();
    const companyForm = page.getByRole('dialog', { name: 'Edit Company' });
    await expect(companyForm.getByLabel(/Company Name/)).toHaveValue('Globex Telecom');
    await companyForm.getByRole('button', { name: 'Cancel' }).click();

    await box(page).fill('viewer@acme');
    const users = group(page, 'Users');
    await expect(users.getByRole('option')).toHaveText([/Carol Wanjiru.*viewer@acme\.example\.com/]);
    await users.getByRole('option').click();
    const userForm = page.getByRole('dialog', { name: 'Edit User' });
    await expect(userForm.getByRole('textbox', { name: /^Name/ })).toHaveValue('Carol Wanjiru');
    await screenshot(page, { path: `${NEW_SCREENS}/07-search-opens-user.png` });
    // The open modal hides the page from the accessibility tree: the tab is read once it closes.
    await userForm.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('tab', { name: 'Users' })).toHaveAttribute('aria-selected', 'true');
  });
});
