import { describe, expect, it } from 'vitest';
import { ZCreateUserForm, ZUpdateUserForm } from '../admin/admin-user.ts';
import { newPassword, PASSWORD_MESSAGES, passwordProblem } from './password.ts';

const repeat = (character: string) => character.repeat(10);

describe('passwords made only of characters that show nothing', () => {
  it.each([
    ['spaces', repeat(' ')],
    ['tabs and line breaks', ' \t\n\r \t\n\r '],
    ['no-break and ideographic spaces', '\u00a0\u3000\u2003\u202f\u205f\u00a0\u3000\u2003'],
    ['zero-width spaces', repeat('\u200b')],
    ['zero-width joiners and non-joiners', '\u200c\u200d'.repeat(5)],
    ['word joiners and byte-order marks', '\u2060\ufeff'.repeat(5)],
    ['Braille blanks', repeat('\u2800')],
    ['Hangul fillers', '\u3164\u115f\u1160\uffa0'.repeat(3)],
    ['variation selectors', '\ufe0f\u{e0100}'.repeat(5)],
    ['soft hyphens and a grapheme joiner', '\u00ad\u034f'.repeat(5)],
    ['a mix of them', ' \u200b\u2800\u3164\u00a0\u2060\ufeff\u200d '],
  ])('refuses %s', (_name, password) => {
    expect(passwordProblem(password)).toBe(PASSWORD_MESSAGES.blank);
    expect(newPassword().safeParse(password).error?.issues[0].message).toBe(PASSWORD_MESSAGES.blank);
  });

  it('holds the same rule wherever a password is set', () => {
    const form = { name: 'Ann', email: 'ann@acme.test', role: 'viewer', companyId: 1 };
    const password = repeat('\u200b');
    const created = ZCreateUserForm.safeParse({ ...form, password });
    expect(created.error?.issues.map((issue) => issue.message)).toContain(PASSWORD_MESSAGES.blank);
    const updated = ZUpdateUserForm.safeParse({ ...form, password });
    expect(updated.error?.issues.map((issue) => issue.message)).toContain(PASSWORD_MESSAGES.blank);
  });

  it('accepts a password with visible characters among invisible ones', () => {
    expect(passwordProblem('\u200b\u200b\u200b\u200b\u200b\u200b\u200bq')).toBeNull();
    expect(passwordProblem('correct horse battery staple')).toBeNull();
    expect(passwordProblem('пароль-надёжный')).toBeNull();
  });

  it('sees a common password through zero-width characters slipped into it', () => {
    expect(passwordProblem('pass\u200bword123')).toBe(PASSWORD_MESSAGES.tooCommon);
  });
});
