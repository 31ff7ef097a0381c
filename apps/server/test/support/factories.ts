import type { TRole } from '@sms/contracts/auth/roles';
import type { App } from '../../src/app.ts';
import type { Database } from '../../src/db/database.ts';
import { hashPassword } from '../../src/modules/auth/passwords.ts';

export const TEST_PASSWORD = 'Password123!';
let passwordHash: Promise<string> | undefined;
let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

export async function createCompany(
  db: Database,
  overrides: Partial<{ name: string; status: string; email: string; plan: string }> = {},
) {
  const id = unique();
  return db
    .insertInto('companies')
    .values({
      name: overrides.name ?? `Company ${id}`,
      email: overrides.email ?? `contact-${id}@company.test`,
      phone_number: '+254700000000',
      address: '1 Test Street, Nairobi',
      status: overrides.status ?? 'active',
      plan: overrides.plan ?? 'basic',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function createUser(
  db: Database,
  options: {
    role: TRole;
    companyId?: number | null;
    status?: string;
    email?: string;
    name?: string;
    password?: string;
  },
) {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const hash = options.password ? await hashPassword(options.password) : await passwordHash;
  return db
    .insertInto('users')
    .values({
      name: options.name ?? `Test ${options.role.replace('_', ' ')} ${unique()}`,
      email: options.email ?? `${options.role}-${unique()}@user.test`,
      password_hash: hash,
      role: options.role,
      company_id: options.role === 'system_admin' ? null : (options.companyId ?? null),
      status: options.status ?? 'active',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function signIn(app: App, email: string, password = TEST_PASSWORD) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email, password },
  });
  if (response.statusCode !== 200) throw new Error(`sign-in of ${email} failed: ${response.body}`);
  const { data } = response.json();
  return {
    accessToken: data.accessToken as string,
    refreshToken: data.refreshToken as string,
    user: data.user,
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A company with one user of each company role plus a system admin, all signed in. */
export async function createTenantWithStaff(app: App, db: Database) {
  const company = await createCompany(db);
  const roles = ['company_admin', 'content_manager', 'viewer'] as const;
  const staff = {} as Record<TRole, { id: number; email: string; token: string }>;
  for (const role of roles) {
    const user = await createUser(db, { role, companyId: company.id });
    staff[role] = { id: user.id, email: user.email, token: (await signIn(app, user.email)).accessToken };
  }
  const admin = await createUser(db, { role: 'system_admin' });
  staff.system_admin = {
    id: admin.id,
    email: admin.email,
    token: (await signIn(app, admin.email)).accessToken,
  };
  return { company, staff };
}
