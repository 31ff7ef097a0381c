import { describe, expect, it } from 'vitest';
import { EMAIL_MESSAGES, emailAddress } from './email.ts';

const address = emailAddress({ required: 'required', invalid: 'invalid' });
const problemOf = (text: string) => address.safeParse(text).error?.issues[0].message ?? null;

describe('look-alike letters of another alphabet in an e-mail address', () => {
  it.each([
    ['a Cyrillic а in a Latin name', 'p\u0430ypal@acme.test'],
    ['a Cyrillic о in a Latin domain label', 'ann@g\u043eogle.com'],
    ['a Greek ο in a Latin name', 'b\u03bfb@acme.test'],
    ['an Armenian օ in a Latin domain label', 'ann@micr\u0585soft.com'],
    ['a Latin a in a Cyrillic name', 'иv\u0430н@пример.рф'],
    ['a Latin o in a Greek domain label', 'ann@παράδειγμo.gr'],
  ])('refuses %s', (_name, text) => {
    expect(problemOf(text)).toBe(EMAIL_MESSAGES.mixedScripts);
  });

  it.each([
    ['plain Latin with digits, dots and hyphens', 'ann.lee-2@acme-1.co.test'],
    ['a wholly Cyrillic address', 'иван@пример.рф'],
    ['a Latin name at a Cyrillic domain', 'ivan@пример.рф'],
    ['a Cyrillic name at a Latin domain', 'иван@example.com'],
    ['a Greek name with digits', 'αλέξης2@acme.test'],
    ['Latin with accents', 'josé.müller@exämple.de'],
  ])('accepts %s', (_name, text) => {
    expect(problemOf(text)).toBeNull();
  });
});
