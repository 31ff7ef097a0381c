import {
  AT_ENVIRONMENTS,
  PROVIDER_DEFAULTS,
  PROVIDER_KINDS,
  SMPP_BIND_MODES,
  SMPP_MESSAGE_ID_TYPES,
  type TCompanyProvider,
  type TProviderKind,
} from '@sms/contracts/admin/company-provider';
import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { CompanyProviderSettingsTable } from '../../db/schema.ts';
import { decryptSecret } from '../../lib/crypto.ts';
import { AFRICASTALKING_BASE_URLS } from './africastalking.ts';

/** One kind's settings, decrypted: the shape a GET shows (ZCompanyProvider), its secret in plain. */
export type ProviderSettings = TCompanyProvider;
export type AfricasTalkingSettings = Extract<ProviderSettings, { kind: 'africastalking' }>;

/** A stored row of company_provider_settings (migration 0007). */
export type ProviderRow = Pick<
  Selectable<CompanyProviderSettingsTable>,
  'kind' | 'settings' | 'secret_encrypted'
>;

/** A decoded row, and whether a secret is stored even if it cannot be read (another key). */
export type DecodedProvider = { settings: ProviderSettings; secretStored: boolean };

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);
const num = (value: unknown, fallback: number) =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;
const numOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const oneOf = <T extends string>(values: readonly T[], value: unknown, fallback: T) =>
  values.includes(value as T) ? (value as T) : fallback;

function decrypt(stored: unknown, key: Buffer) {
  if (typeof stored !== 'string' || !stored) return null;
  try {
    return decryptSecret(stored, key);
  } catch {
    return null;
  }
}

export const isProviderKind = (value: unknown): value is TProviderKind =>
  PROVIDER_KINDS.includes(value as TProviderKind);

/**
 * A kind's settings from its stored row, with defaults for anything missing (no row yet, or a row
 * written by an older version). Reading never fails: a bad value falls back to its default.
 */
export function decodeProviderRow(
  kind: TProviderKind,
  row: ProviderRow | undefined,
  key: Buffer,
): DecodedProvider {
  const stored = row?.settings ?? {};
  const secret = decrypt(row?.secret_encrypted, key);
  const secretStored = Boolean(row?.secret_encrypted);
  switch (kind) {
    case 'simulator':
      return {
        secretStored: false,
        settings: {
          kind,
          acceptanceRate: numOrNull(stored.acceptanceRate),
          failureRate: numOrNull(stored.failureRate),
          deliveryDelayMs: numOrNull(stored.deliveryDelayMs),
          messagesPerSecond: numOrNull(stored.messagesPerSecond),
        },
      };
    case 'africastalking': {
      const defaults = PROVIDER_DEFAULTS.africastalking;
      // Moved by migration 0007 while still encrypted; a save writes it in plain.
      const username = text(stored.username) ?? text(decrypt(stored.legacyUsernameEncrypted, key));
      const environment = oneOf(
        AT_ENVIRONMENTS,
        stored.environment,
        username === 'sandbox' ? 'sandbox' : defaults.environment,
      );
      return {
        secretStored,
        settings: {
          kind,
          username,
          apiKey: secret,
          environment,
          baseUrl: text(stored.baseUrl),
          senderId: text(stored.senderId),
          batchSize: num(stored.batchSize, defaults.batchSize),
          messagesPerSecond: num(stored.messagesPerSecond, defaults.messagesPerSecond),
        },
      };
    }
    case 'smpp': {
      const defaults = PROVIDER_DEFAULTS.smpp;
      return {
        secretStored,
        settings: {
          kind,
          host: text(stored.host) ?? '',
          port: num(stored.port, defaults.port),
          systemId: text(stored.systemId) ?? '',
          password: secret,
          systemType: text(stored.systemType),
          bindMode: oneOf(SMPP_BIND_MODES, stored.bindMode, defaults.bindMode),
          messageIdType: oneOf(SMPP_MESSAGE_ID_TYPES, stored.messageIdType, defaults.messageIdType),
          messagesPerSecond: num(stored.messagesPerSecond, defaults.messagesPerSecond),
          window: num(stored.window, defaults.window),
          sourceTon: numOrNull(stored.sourceTon),
          sourceNpi: numOrNull(stored.sourceNpi),
        },
      };
    }
  }
}

/** The base URL Africa's Talking requests go to for these settings. */
export function africasTalkingBaseUrl(settings: AfricasTalkingSettings) {
  if (settings.environment === 'custom' && settings.baseUrl) return settings.baseUrl;
  return settings.environment === 'sandbox'
    ? AFRICASTALKING_BASE_URLS.sandbox
    : AFRICASTALKING_BASE_URLS.live;
}

/**
 * The companies whose provider keeps a connection (SMPP): a worker binds their links as it starts,
 * not on their first send, so receipts and handset messages flow at once. Needs the platform scope.
 */
export async function listCompaniesOnConnectedProviders(trx: Executor): Promise<number[]> {
  const rows = await trx
    .selectFrom('companies')
    .select('id')
    .where('sms_provider', 'in', [...CONNECTED_PROVIDER_KINDS])
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Provider kinds whose adapter holds a connection open (and so is built before it is needed). */
export const CONNECTED_PROVIDER_KINDS: ReadonlySet<TProviderKind> = new Set(['smpp']);

/**
 * The settings of the provider a company sends through, decrypted, for the engine. Runs inside the
 * caller's transaction, which must be bound to that company (or the platform). A company that
 * configured nothing gets the simulator with the platform's defaults.
 */
export async function loadProviderSettings(
  trx: Executor,
  companyId: number,
  encryptionKey: Buffer,
): Promise<ProviderSettings> {
  const company = await trx
    .selectFrom('companies')
    .select('sms_provider')
    .where('id', '=', companyId)
    .executeTakeFirst();
  const kind = isProviderKind(company?.sms_provider) ? company.sms_provider : 'simulator';
  const row = await trx
    .selectFrom('company_provider_settings')
    .select(['kind', 'settings', 'secret_encrypted'])
    .where('company_id', '=', companyId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return decodeProviderRow(kind, row, encryptionKey).settings;
}
