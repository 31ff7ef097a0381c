import { type APIRequestContext, expect } from '@playwright/test';
import { DEMO_PASSWORD, DEMO_USERS } from './sign-in.ts';

/** Specs that need a company of their own set it up through the API, as an integrator would. */
export async function callApi(
  request: APIRequestContext,
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  data?: object,
) {
  const response = await request.fetch(`/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
    data,
  });
  expect(response.ok(), `${method} ${path}: ${response.status()} ${await response.text()}`).toBe(true);
  return (await response.json()).data;
}

export async function tokenOf(request: APIRequestContext, email: string) {
  const response = await request.post('/api/v1/auth/login', { data: { email, password: DEMO_PASSWORD } });
  return (await response.json()).data.accessToken as string;
}

/** A company on the basic plan with one company admin, who is signed in for the API. */
export async function createCompanyWithOwner(
  request: APIRequestContext,
  company: { name: string; email: string; phoneNumber: string; address: string },
  owner: { name: string; email: string },
) {
  const admin = await tokenOf(request, DEMO_USERS.systemAdmin);
  const created = await callApi(request, admin, 'POST', '/admin/companies', {
    ...company,
    plan: 'basic',
    status: 'active',
  });
  const companyId: number = created.company.id;
  await callApi(request, admin, 'POST', '/admin/users', {
    ...owner,
    password: DEMO_PASSWORD,
    role: 'company_admin',
    companyId,
    status: 'active',
  });
  return { companyId, ownerToken: await tokenOf(request, owner.email) };
}

/** The other specs count the demo data: a spec's company and everything it holds go again. */
export async function deleteCompany(request: APIRequestContext, companyId: number) {
  const admin = await tokenOf(request, DEMO_USERS.systemAdmin);
  await callApi(request, admin, 'DELETE', `/admin/companies/${companyId}?cascade=true`);
}
