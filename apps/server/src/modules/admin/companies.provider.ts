import type { TCompanyForm } from '@sms/contracts/admin/company';
import {
  maskSecret,
  PROVIDER_MESSAGES,
  SECRET_MASK,
  type TCompanyProvider,
  type TProviderKind,
} from '@sms/contracts/admin/company-provider';
import { AppError } from '../../errors.ts';
import { NOT_A_HOST_REASON, type PublicAddressPolicy } from '../../lib/public-address.ts';
import {
  type AfricasTalkingSettings,
  type DecodedProvider,
  decodeProviderRow,
  isProviderKind,
  type ProviderRow,
  type ProviderSettings,
} from '../../messaging/providers/provider-settings.ts';
import type { SecretChange } from './companies.repository.ts';

/** A secret as a GET shows it: masked; bullets alone when stored but unreadable with this key. */
const maskedSecret = (secret: string | null, stored: boolean) =>
  secret ? maskSecret(secret) : stored ? SECRET_MASK : null;

const activeKindOf = (smsProvider: string): TProviderKind =>
  isProviderKind(smsProvider) ? smsProvider : 'simulator';

function decode(rows: ProviderRow[], kind: TProviderKind, key: Buffer) {
  return decodeProviderRow(
    kind,
    rows.find((row) => row.kind === kind),
    key,
  );
}

function toPublic({ settings, secretStored }: DecodedProvider): TCompanyProvider {
  switch (settings.kind) {
    case 'simulator':
      return settings;
    case 'africastalking':
      return { ...settings, apiKey: maskedSecret(settings.apiKey, secretStored) };
    case 'smpp':
      return { ...settings, password: maskedSecret(settings.password, secretStored) };
  }
}

/**
 * The provider fields of a company as the API shows them: the provider in use with its settings,
 * and the spec's apiKey / apiSecret, which are Africa's Talking's key (masked) and username.
 */
export function presentProvider(smsProvider: string, rows: ProviderRow[], key: Buffer) {
  const at = decode(rows, 'africastalking', key);
  const atSettings = at.settings as AfricasTalkingSettings;
  return {
    apiKey: maskedSecret(atSettings.apiKey, at.secretStored),
    apiSecret: atSettings.username,
    provider: toPublic(decode(rows, activeKindOf(smsProvider), key)),
  };
}

export type ProviderWrite = { settings: ProviderSettings; secret: SecretChange };

/** The secret rule of the form: undefined keeps, null clears, text replaces. */
const secretChangeOf = (value: string | null | undefined): SecretChange =>
  value === undefined ? { action: 'keep' } : { action: 'set', value };

/**
 * What a saved form does to the provider settings: the kind in use afterwards and the rows to
 * write. The spec's apiKey / apiSecret always address Africa's Talking (whichever kind is in use);
 * `provider` picks the kind and replaces that kind's settings, its secret following the form's rule.
 */
export function planProviderChange(
  smsProvider: string,
  rows: ProviderRow[],
  form: Pick<TCompanyForm, 'apiKey' | 'apiSecret' | 'provider'>,
  key: Buffer,
): { kind: TProviderKind; writes: ProviderWrite[] } {
  const writes = new Map<TProviderKind, ProviderWrite>();
  if (form.apiKey !== undefined || form.apiSecret !== undefined) {
    const at = decode(rows, 'africastalking', key).settings as AfricasTalkingSettings;
    writes.set('africastalking', {
      settings: { ...at, ...(form.apiSecret !== undefined && { username: form.apiSecret }) },
      secret: secretChangeOf(form.apiKey),
    });
  }
  const input = form.provider;
  if (!input) return { kind: activeKindOf(smsProvider), writes: [...writes.values()] };

  const earlier = writes.get(input.kind);
  const stored = decode(rows, input.kind, key);
  const inputSecret =
    input.kind === 'africastalking' ? input.apiKey : input.kind === 'smpp' ? input.password : null;
  const secret =
    inputSecret === undefined ? (earlier?.secret ?? { action: 'keep' }) : secretChangeOf(inputSecret);
  const settings: ProviderSettings =
    input.kind === 'africastalking'
      ? { ...input, apiKey: null }
      : input.kind === 'smpp'
        ? { ...input, password: null }
        : input;
  if (input.kind === 'africastalking') {
    const hasKey = secret.action === 'set' ? Boolean(secret.value) : stored.secretStored;
    if (!hasKey) throw new AppError('validation_failed', PROVIDER_MESSAGES.atApiKeyRequired);
  }
  writes.set(input.kind, { settings, secret });
  return { kind: input.kind, writes: [...writes.values()] };
}

/** The audit details of a provider change: settings in plain, secrets only as "changed". */
export function auditedProvider(form: Pick<TCompanyForm, 'apiKey' | 'apiSecret' | 'provider'>) {
  const provider = form.provider;
  const providerSecret =
    provider?.kind === 'africastalking'
      ? provider.apiKey
      : provider?.kind === 'smpp'
        ? provider.password
        : undefined;
  return {
    apiKeyChanged: form.apiKey !== undefined,
    apiSecretChanged: form.apiSecret !== undefined,
    ...(provider && {
      provider: Object.fromEntries(
        Object.entries(provider).filter(([name]) => name !== 'apiKey' && name !== 'password'),
      ),
      providerSecretChanged: providerSecret !== undefined,
    }),
  };
}

/**
 * The addresses a saved provider would connect to, checked before anything is written: an
 * Africa's Talking custom base URL and an SMPP host must be public (or listed by the operator),
 * and what their names resolve to now too. The adapters check again when they connect.
 */
export async function checkProviderAddresses(
  provider: TCompanyForm['provider'],
  policy: PublicAddressPolicy,
) {
  if (provider?.kind === 'africastalking' && provider.environment === 'custom' && provider.baseUrl) {
    const url = new URL(provider.baseUrl);
    if (url.username || url.password)
      throw new AppError('validation_failed', PROVIDER_MESSAGES.baseUrlCredentials);
    if (await policy.check(url.hostname))
      throw new AppError('validation_failed', PROVIDER_MESSAGES.baseUrlNotPublic);
  }
  if (provider?.kind === 'smpp') {
    const refusal = await policy.check(provider.host);
    if (refusal === NOT_A_HOST_REASON)
      throw new AppError('validation_failed', PROVIDER_MESSAGES.smppHostInvalid);
    if (refusal) throw new AppError('validation_failed', PROVIDER_MESSAGES.smppHostNotPublic);
  }
}
