import { USER_MESSAGES } from '@sms/contracts/admin/admin-user';
import { EMAIL_MESSAGES } from '@sms/contracts/auth/email';
import { PASSWORD_MESSAGES } from '@sms/contracts/auth/password';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { StartupError } from '../src/lib/startup-error.ts';
import { call, userForm } from './support/admin-factories.ts';
import { createCompany, createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let adminToken: string;
let companyId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  const admin = await createUser(ctx.ownerDb, { role: 'system_admin' });
  adminToken = (await signIn(ctx.app, admin.email)).accessToken;
  companyId = (await createCompany(ctx.ownerDb)).id;
});
afterAll(() => ctx.close());

const api = (method: 'POST' | 'PUT', url: string, payload: unknown) =>
  call(ctx.app, adminToken, method, url, payload);

describe('new passwords', () => {
  it.each([
    ['        ', PASSWORD_MESSAGES.blank],
    [' \t  \t   ', PASSWORD_MESSAGES.blank],
    ['\u200b'.repeat(10), PASSWORD_MESSAGES.blank],
    ['\u2800\u3164\u00a0\u2060\ufeff\u200d\u2800\u3164', PASSWORD_MESSAGES.blank],
    ['password123', PASSWORD_MESSAGES.tooCommon],
    ['Password1', PASSWORD_MESSAGES.tooCommon],
    ['QWERTYUIOP', PASSWORD_MESSAGES.tooCommon],
    ['12345678', PASSWORD_MESSAGES.tooCommon],
    ['short', USER_MESSAGES.passwordTooShort],
  ])('refuses %j on create and on update: %s', async (password, message) => {
    const created = await api('POST', '/admin/users', userForm(companyId, { password }));
    expect(created.statusCode).toBe(400);
    expect(created.json().message).toBe(message);

    const user = await createUser(ctx.ownerDb, { role: 'viewer', companyId });
    const updated = await api('PUT', `/admin/users/${user.id}`, {
      ...userForm(companyId, { email: user.email, name: user.name }),
      password,
    });
    expect(updated.statusCode).toBe(400);
    expect(updated.json().message).toBe(message);
  });

  it('accepts a long, uncommon password with spaces inside', async () => {
    const form = userForm(companyId, { password: 'correct horse battery staple' });
    expect((await api('POST', '/admin/users', form)).statusCode).toBe(201);
    expect((await signIn(ctx.app, form.email, form.password)).user.email).toBe(form.email);
  });

  it('holds ADMIN_PASSWORD to the same rule at start-up', () => {
    const start = (password: string) => () =>
      loadConfig({ ADMIN_EMAIL: 'root@example.test', ADMIN_PASSWORD: password });
    expect(start('        ')).toThrow(StartupError);
    expect(start('        ')).toThrow(`ADMIN_PASSWORD: ${PASSWORD_MESSAGES.blank}`);
    expect(start('\u200b'.repeat(10))).toThrow(`ADMIN_PASSWORD: ${PASSWORD_MESSAGES.blank}`);
    expect(start('password1')).toThrow(`ADMIN_PASSWORD: ${PASSWORD_MESSAGES.tooCommon}`);
    expect(start('a long passphrase')().adminPassword).toBe('a long passphrase');
  });
});

describe('user e-mail addresses', () => {
  it.each([
    ['zero-width space', 'ann\u200b@acme.test'],
    ['zero-width joiner', 'ann@ac\u200dme.test'],
    ['soft hyphen', 'an\u00adn@acme.test'],
    ['right-to-left mark', 'ann@acme.test\u200f'],
    ['byte-order mark inside', 'an\ufeffn@acme.test'],
    ['control character', 'ann\u0007@acme.test'],
  ])('refuses an address with a %s', async (_name, email) => {
    const response = await api('POST', '/admin/users', userForm(companyId, { email }));
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(EMAIL_MESSAGES.invisible);
  });

  it('refuses a look-alike address that mixes alphabets, and keeps one written in one', async () => {
    const lookAlike = await api(
      'POST',
      '/admin/users',
      userForm(companyId, { email: 'p\u0430ypal@acme.test' }),
    );
    expect(lookAlike.statusCode).toBe(400);
    expect(lookAlike.json().message).toBe(EMAIL_MESSAGES.mixedScripts);
    const user = await createUser(ctx.ownerDb, { role: 'viewer', companyId });
    const renamed = await api('PUT', `/admin/users/${user.id}`, {
      ...userForm(companyId, { name: user.name }),
      email: 'ann@g\u043eogle.com',
    });
    expect(renamed.statusCode).toBe(400);
    expect(renamed.json().message).toBe(EMAIL_MESSAGES.mixedScripts);
    const cyrillic = await api('POST', '/admin/users', userForm(companyId, { email: 'иван@пример.рф' }));
    expect(cyrillic.statusCode).toBe(201);
  });

  it('stores the normal form (trimmed, NFKC) and sees look-alike spellings as the same address', async () => {
    const first = await api('POST', '/admin/users', userForm(companyId, { email: '  Ｂｏｂ@Acme.test ' }));
    expect(first.statusCode).toBe(201);
    expect(first.json().data.user.email).toBe('Bob@Acme.test');
    const again = await api('POST', '/admin/users', userForm(companyId, { email: 'bob@acme.test' }));
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(USER_MESSAGES.emailTaken);
  });

  it('signs in with a full-width or padded spelling of the address', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'viewer', companyId, email: 'carol@acme.test' });
    expect((await signIn(ctx.app, ' ｃａｒｏｌ@acme.test ')).user.id).toBe(user.id);
  });
});
