import { describe, expect, it } from 'vitest';
import { ZServiceForm } from '../services/service.ts';
import {
  PROVIDER_DEFAULTS,
  PROVIDER_LIMITS,
  PROVIDER_MESSAGES,
  SMPP_SOURCE_ADDRESS_DEFAULTS,
  senderRefusal,
  ZProviderSettingsInput,
} from './company-provider.ts';

const smpp = (overrides: Record<string, unknown> = {}) => ({
  kind: 'smpp',
  host: 'smsc.example.net',
  systemId: 'acme',
  password: 'pw123456',
  ...overrides,
});

const firstError = (input: unknown) => {
  const parsed = ZProviderSettingsInput.safeParse(input);
  return parsed.success ? null : parsed.error.issues[0]?.message;
};

describe('SMPP settings', () => {
  it('take what real SMSCs offer: up to 100,000 messages a second and a window of 1,000', () => {
    expect(PROVIDER_LIMITS.smppMessagesPerSecond.max).toBe(100_000);
    expect(PROVIDER_LIMITS.smppWindow.max).toBe(1_000);
    expect(firstError(smpp({ messagesPerSecond: 100_000, window: 1_000 }))).toBeNull();
    expect(firstError(smpp({ messagesPerSecond: 100_001 }))).toBe(
      'Messages per second must be at most 100000',
    );
    expect(firstError(smpp({ window: 1_001 }))).toBe('Window must be at most 1000');
  });

  it('default to 50 a second and a window of 10', () => {
    const parsed = ZProviderSettingsInput.parse(smpp());
    expect(parsed).toMatchObject({ messagesPerSecond: 50, window: 10 });
    expect(PROVIDER_DEFAULTS.smpp).toMatchObject({ messagesPerSecond: 50, window: 10 });
  });

  it('refuse a password over 8 characters and a system id over 15 (SMPP 3.4 field sizes)', () => {
    expect(firstError(smpp({ password: '12345678' }))).toBeNull();
    expect(firstError(smpp({ password: '123456789' }))).toBe(PROVIDER_MESSAGES.smppPasswordTooLong);
    expect(firstError(smpp({ systemId: 'a'.repeat(15) }))).toBeNull();
    expect(firstError(smpp({ systemId: 'a'.repeat(16) }))).toBe('System ID must be 15 characters or less');
  });

  it('keep the stored password when the mask GET returned is saved back', () => {
    expect(ZProviderSettingsInput.parse(smpp({ password: '••••••••' }))).toMatchObject({
      password: undefined,
    });
  });
});

describe('SMPP source address TON/NPI', () => {
  it('default by the sender: letters 5/0, a short code 3/0, an international number 1/1', () => {
    expect(SMPP_SOURCE_ADDRESS_DEFAULTS).toEqual({
      alphanumeric: { ton: 5, npi: 0 },
      shortCode: { ton: 3, npi: 0 },
      international: { ton: 1, npi: 1 },
    });
    expect(ZProviderSettingsInput.parse(smpp())).toMatchObject({ sourceTon: null, sourceNpi: null });
  });

  it("take a company's own values within SMPP 3.4's ranges", () => {
    expect(ZProviderSettingsInput.parse(smpp({ sourceTon: 0, sourceNpi: 1 }))).toMatchObject({
      sourceTon: 0,
      sourceNpi: 1,
    });
    expect(firstError(smpp({ sourceTon: 7 }))).toBe('Source TON must be at most 6');
    expect(firstError(smpp({ sourceNpi: 19 }))).toBe('Source NPI must be at most 18');
  });
});

describe('senders', () => {
  it('allow letters up to 11 characters and digits up to the field size', () => {
    expect(senderRefusal('ACMEBANKING')).toBeNull();
    expect(senderRefusal('ACMEBANKING1')).toBe(PROVIDER_MESSAGES.senderTooLong);
    expect(senderRefusal('254711000111222')).toBeNull();
  });

  it("refuse an over-long alphanumeric Africa's Talking sender id instead of cutting it", () => {
    const at = { kind: 'africastalking', username: 'acme', apiKey: 'key', senderId: 'ACMEBANKING1' };
    expect(firstError(at)).toBe(PROVIDER_MESSAGES.senderTooLong);
    expect(firstError({ ...at, senderId: 'ACMEBANKING' })).toBeNull();
  });

  it("refuse a service's alphanumeric short code over 11 characters (it is the SMPP sender)", () => {
    const service = { name: 'News', keyword: 'NEWS', companyId: 1 };
    const refused = ZServiceForm.safeParse({ ...service, shortcode: 'acmebanking1' });
    expect(refused.success ? null : refused.error.issues[0]?.message).toBe(PROVIDER_MESSAGES.senderTooLong);
    expect(ZServiceForm.safeParse({ ...service, shortcode: 'acmebanking' }).success).toBe(true);
    expect(ZServiceForm.safeParse({ ...service, shortcode: '22384000111222' }).success).toBe(true);
  });
});
