import { describe, expect, it } from 'vitest';
import { measureSms } from '../messages/sms-encoding.ts';
import {
  attributeNameOfHeader,
  GSM_BASIC_CHARACTERS,
  GSM_EXTENSION_CHARACTERS,
  longestExpansion,
  mergeFieldsOf,
  parseTemplate,
  renderTemplate,
  type TFieldStats,
  ZSubscriberAttributes,
} from './merge-fields.ts';

const stats = (name: string, values: (string | null)[]): TFieldStats => {
  const present = values.filter((value): value is string => value !== null);
  const gsm = present.filter((value) => measureSms(value).encoding === 'GSM-7');
  return {
    name,
    maxLength: Math.max(0, ...present.map((value) => value.length)),
    maxGsmUnits: Math.max(0, ...gsm.map((value) => measureSms(value).units)),
    anyUnicode: present.some((value) => measureSms(value).encoding === 'UCS-2'),
    anyMissing: values.some((value) => value === null),
  };
};

describe('placeholders', () => {
  it('reads {{name}} and {{name|fallback}}, spaces trimmed, and renders them', () => {
    const template = parseTemplate('Hi {{ first_name | friend }}, {{language}}!');
    expect(template.errors).toEqual([]);
    expect(template.fields).toEqual(['first_name', 'language']);
    expect(renderTemplate(template, { first_name: 'Amina', language: 'sw' })).toBe('Hi Amina, sw!');
    expect(renderTemplate(template, { first_name: '  ' })).toBe('Hi friend, !');
    expect(renderTemplate(template, null)).toBe('Hi friend, !');
    expect(renderTemplate('No fields {here}', { here: 'x' })).toBe('No fields {here}');
    expect(mergeFieldsOf('plain text')).toEqual([]);
  });

  it('refuses malformed placeholders with a message naming them', () => {
    expect(parseTemplate('Hi {{First Name}}').errors[0]).toContain('{{First Name}} is not a merge field');
    expect(parseTemplate('Hi {{}}').errors).toHaveLength(1);
    expect(parseTemplate('Hi {{first_name').errors[0]).toContain('not closed');
    expect(parseTemplate(`Hi {{first_name|${'x'.repeat(51)}}}`).errors[0]).toContain('fallback');
  });

  it('reads CSV headers as field names', () => {
    expect(attributeNameOfHeader('First Name')).toBe('first_name');
    expect(attributeNameOfHeader(' language ')).toBe('language');
    expect(attributeNameOfHeader('2nd')).toBeNull();
    expect(attributeNameOfHeader('e-mail')).toBe('e_mail');
  });
});

describe('subscriber attributes', () => {
  it('trims values, drops blank ones, refuses bad names, long values and too many fields', () => {
    expect(ZSubscriberAttributes.parse({ first_name: ' Amina ', language: '' })).toEqual({
      first_name: 'Amina',
    });
    expect(ZSubscriberAttributes.safeParse({ 'First Name': 'x' }).success).toBe(false);
    expect(ZSubscriberAttributes.safeParse({ first_name: 'x'.repeat(101) }).success).toBe(false);
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, 'x']));
    expect(ZSubscriberAttributes.safeParse(eleven).success).toBe(false);
  });
});

describe('longestExpansion', () => {
  it('is the longest value among the recipients, or the fallback where one has none', () => {
    const text = 'Hi {{first_name|friend}}, your code is ready';
    const literal = 'Hi , your code is ready'.length;
    expect(longestExpansion(text, [stats('first_name', ['Al', 'Bartholomew'])])).toEqual({
      length: literal + 11,
      encoding: 'GSM-7',
      parts: 1,
    });
    // "friend" (6) is longer than every name, and one recipient has none.
    expect(longestExpansion(text, [stats('first_name', ['Al', null])]).length).toBe(literal + 6);
    // Nobody has the field: the fallback for all.
    expect(longestExpansion(text, []).length).toBe(literal + 6);
  });

  it('counts parts and encoding of the longest text with the one SMS rule', () => {
    const text = `${'a'.repeat(150)}{{first_name}}`;
    expect(longestExpansion(text, [stats('first_name', ['1234567890'])])).toEqual({
      length: 160,
      encoding: 'GSM-7',
      parts: 1,
    });
    // An extension character counts two units: 161 units, two parts, 160 characters.
    expect(longestExpansion(text, [stats('first_name', ['123456789€'])])).toEqual({
      length: 160,
      encoding: 'GSM-7',
      parts: 2,
    });
    // One Unicode name makes the longest text Unicode: 160 characters are three parts of 67.
    expect(longestExpansion(text, [stats('first_name', ['1234567890', 'Жанна'])])).toEqual({
      length: 160,
      encoding: 'UCS-2',
      parts: 3,
    });
  });

  it('equals the measure of the rendered text for a field used once', () => {
    const text = 'Dear {{first_name|customer}}, 20% off today';
    const names = ['Wanjiru', 'Ng~ang€', null, 'Zoë', 'Łukasz'];
    const longest = longestExpansion(text, [stats('first_name', names)]);
    const rendered = names.map((name) => renderTemplate(text, name ? { first_name: name } : null));
    expect(longest.length).toBe(Math.max(...rendered.map((value) => value.length)));
    expect(longest.parts).toBe(Math.max(...rendered.map((value) => measureSms(value).parts)));
  });
});

describe('the GSM-7 character lists (the server reads values with them in SQL)', () => {
  it('agree with measureSms on every character of the Basic Multilingual Plane below U+3000', () => {
    for (let code = 0; code < 0x3000; code++) {
      if (code >= 0xd800 && code < 0xe000) continue;
      const char = String.fromCharCode(code);
      const measured = measureSms(char);
      const listed = GSM_BASIC_CHARACTERS.includes(char)
        ? 1
        : GSM_EXTENSION_CHARACTERS.includes(char)
          ? 2
          : 0;
      expect(measured.encoding === 'GSM-7' ? measured.units : 0, `U+${code.toString(16)}`).toBe(listed);
    }
  });
});
