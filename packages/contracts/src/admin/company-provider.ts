import { z } from 'zod';

/** The providers a company can send through; the simulator is every company's default. */
export const PROVIDER_KINDS = ['simulator', 'africastalking', 'smpp'] as const;
export type TProviderKind = (typeof PROVIDER_KINDS)[number];
export const PROVIDER_KIND_LABELS: Record<TProviderKind, string> = {
  simulator: 'Simulator',
  africastalking: "Africa's Talking",
  smpp: 'SMPP',
};

export const AT_ENVIRONMENTS = ['live', 'sandbox', 'custom'] as const;
export type TAtEnvironment = (typeof AT_ENVIRONMENTS)[number];
export const AT_ENVIRONMENT_LABELS: Record<TAtEnvironment, string> = {
  live: 'Live',
  sandbox: 'Sandbox',
  custom: 'Custom base URL',
};

export const SMPP_BIND_MODES = ['transceiver', 'transmitter_receiver'] as const;
export type TSmppBindMode = (typeof SMPP_BIND_MODES)[number];
export const SMPP_BIND_MODE_LABELS: Record<TSmppBindMode, string> = {
  transceiver: 'Transceiver (one session)',
  transmitter_receiver: 'Transmitter + receiver (two sessions)',
};

/**
 * How the SMSC writes a message's id in submit_sm_resp and in its receipts (Kannel's msg-id-type):
 * some give one number in hex in the one and in decimal in the other. `auto` matches both forms.
 */
export const SMPP_MESSAGE_ID_TYPES = ['auto', 'same', 'hex_decimal', 'decimal_hex'] as const;
export type TSmppMessageIdType = (typeof SMPP_MESSAGE_ID_TYPES)[number];
export const SMPP_MESSAGE_ID_TYPE_LABELS: Record<TSmppMessageIdType, string> = {
  auto: 'Either form (default)',
  same: 'The same in both',
  hex_decimal: 'Hex in response, decimal in receipt',
  decimal_hex: 'Decimal in response, hex in receipt',
};

/** Defaults a new configuration of each kind starts from (Africa's Talking publishes no limits). */
export const PROVIDER_DEFAULTS = {
  africastalking: { environment: 'live', batchSize: 100, messagesPerSecond: 50 },
  smpp: { port: 2775, bindMode: 'transceiver', messagesPerSecond: 50, window: 10, messageIdType: 'auto' },
} as const;

/**
 * The source address's type of number and numbering plan (SMPP 3.4 5.2.5-6) by the sender's kind,
 * for a company that sets none of its own.
 */
export const SMPP_SOURCE_ADDRESS_DEFAULTS = {
  alphanumeric: { ton: 5, npi: 0 },
  shortCode: { ton: 3, npi: 0 },
  international: { ton: 1, npi: 1 },
} as const;

export const PROVIDER_LIMITS = {
  atBatchSize: { min: 1, max: 1000 },
  atMessagesPerSecond: { min: 1, max: 1000 },
  smppMessagesPerSecond: { min: 1, max: 100_000 },
  smppWindow: { min: 1, max: 1_000 },
  smppTon: { min: 0, max: 6 },
  smppNpi: { min: 0, max: 18 },
  /** SMPP 3.4 bind fields: password at most 9 octets and system_id 16, each with its NUL. */
  smppPasswordLength: 8,
  smppSystemIdLength: 15,
  /** GSM 03.40: an alphanumeric originator holds at most 11 characters. */
  alphanumericSenderLength: 11,
  simulatorMessagesPerSecond: { min: 1, max: 1_000_000 },
  simulatorDelayMs: { min: 0, max: 86_400_000 },
} as const;

export const PROVIDER_MESSAGES = {
  atUsernameRequired: "API Username is required for Africa's Talking",
  atApiKeyRequired: "API Key is required for Africa's Talking",
  atBaseUrlRequired: 'Base URL is required for a custom environment',
  baseUrlInvalid: 'Base URL must be an http or https address',
  baseUrlCredentials: 'Base URL must not contain a user name or password',
  baseUrlNotPublic:
    'Base URL must not point at a private, loopback or link-local address (the operator can allow a host with PROVIDER_ALLOWED_PRIVATE_HOSTS)',
  smppHostNotPublic:
    'Host must not be a private, loopback or link-local address (the operator can allow a host with PROVIDER_ALLOWED_PRIVATE_HOSTS)',
  smppHostRequired: 'Host is required for SMPP',
  smppHostInvalid: 'Host must be a host name or IP address, without scheme or port',
  smppSystemIdRequired: 'System ID is required for SMPP',
  smppPasswordTooLong: 'Password must be 8 characters or less (SMPP 3.4)',
  senderTooLong: 'A sender with letters must be 11 characters or less; only a numeric one may be longer',
  rate: 'Must be between 0 and 1',
} as const;

/**
 * What a GET shows instead of a secret: bullets, plus the last four characters only when the
 * secret is long enough (12 or more) that they give little away.
 */
export const SECRET_MASK = '••••••••';
export const SECRET_MIN_LENGTH_FOR_HINT = 12;

export function maskSecret(plain: string | null | undefined): string | null {
  if (!plain) return null;
  return plain.length >= SECRET_MIN_LENGTH_FOR_HINT ? `${SECRET_MASK}${plain.slice(-4)}` : SECRET_MASK;
}

/** True for a value a GET returned in place of a secret (saving it back keeps the secret). */
export const isMaskedSecret = (value: string) => /^•+[^•]{0,4}$/.test(value);

/**
 * A secret field on save: omitted, blank or the mask that GET returned keeps the stored secret
 * (undefined); null clears it; any other text replaces it.
 */
export const ZSecretInput = z
  .string()
  .trim()
  .max(500, 'Must be 500 characters or less')
  .nullable()
  .optional()
  .transform((value) => (value === '' || (value && isMaskedSecret(value)) ? undefined : value));

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `Must be ${max} characters or less`)
    .nullish()
    .transform((value) => value || null);

const integer = (min: number, max: number, label: string) =>
  z
    .number({ error: `${label} must be a number` })
    .int(`${label} must be a whole number`)
    .min(min, `${label} must be at least ${min}`)
    .max(max, `${label} must be at most ${max}`);

const rate = z
  .number({ error: PROVIDER_MESSAGES.rate })
  .min(0, PROVIDER_MESSAGES.rate)
  .max(1, PROVIDER_MESSAGES.rate);

/**
 * Why a sender (a service's short code, a sender id) cannot go out as it is, or null. Networks
 * carry at most 11 characters of an alphanumeric sender; it is refused, never cut to fit.
 */
export function senderRefusal(sender: string): string | null {
  return /[^0-9+]/.test(sender) && sender.length > PROVIDER_LIMITS.alphanumericSenderLength
    ? PROVIDER_MESSAGES.senderTooLong
    : null;
}

const isHttpUrl = (value: string) => /^https?:\/\/[^\s/]+/i.test(value) && URL.canParse(value);
const hasCredentials = (value: string) => {
  const url = URL.canParse(value) ? new URL(value) : null;
  return Boolean(url && (url.username || url.password));
};

/** An optional http(s) base URL; blank reads as none. */
const ZOptionalHttpUrl = z
  .string()
  .trim()
  .max(500, 'Must be 500 characters or less')
  .nullish()
  .transform((value) => value || null)
  .refine((value) => value === null || isHttpUrl(value), PROVIDER_MESSAGES.baseUrlInvalid)
  .refine((value) => value === null || !hasCredentials(value), PROVIDER_MESSAGES.baseUrlCredentials);

/** Simulator knobs; null (or absent) leaves the platform default (SIMULATOR_* settings). */
const ZSimulatorSettings = z.object({
  kind: z.literal('simulator'),
  acceptanceRate: rate.nullish().transform((v) => v ?? null),
  failureRate: rate.nullish().transform((v) => v ?? null),
  deliveryDelayMs: integer(
    PROVIDER_LIMITS.simulatorDelayMs.min,
    PROVIDER_LIMITS.simulatorDelayMs.max,
    'Delivery delay',
  )
    .nullish()
    .transform((v) => v ?? null),
  messagesPerSecond: integer(
    PROVIDER_LIMITS.simulatorMessagesPerSecond.min,
    PROVIDER_LIMITS.simulatorMessagesPerSecond.max,
    'Messages per second',
  )
    .nullish()
    .transform((v) => v ?? null),
});

const ZAfricasTalkingSettings = z
  .object({
    kind: z.literal('africastalking'),
    username: z
      .string({ error: PROVIDER_MESSAGES.atUsernameRequired })
      .trim()
      .min(1, PROVIDER_MESSAGES.atUsernameRequired)
      .max(100, 'Must be 100 characters or less'),
    apiKey: ZSecretInput,
    environment: z
      .enum(AT_ENVIRONMENTS, { error: 'Environment must be live, sandbox or custom' })
      .default(PROVIDER_DEFAULTS.africastalking.environment),
    baseUrl: ZOptionalHttpUrl,
    senderId: optionalText(15).refine(
      (value) => value === null || !senderRefusal(value),
      PROVIDER_MESSAGES.senderTooLong,
    ),
    batchSize: integer(
      PROVIDER_LIMITS.atBatchSize.min,
      PROVIDER_LIMITS.atBatchSize.max,
      'Batch size',
    ).default(PROVIDER_DEFAULTS.africastalking.batchSize),
    messagesPerSecond: integer(
      PROVIDER_LIMITS.atMessagesPerSecond.min,
      PROVIDER_LIMITS.atMessagesPerSecond.max,
      'Messages per second',
    ).default(PROVIDER_DEFAULTS.africastalking.messagesPerSecond),
  })
  .refine((value) => value.environment !== 'custom' || value.baseUrl, {
    path: ['baseUrl'],
    message: PROVIDER_MESSAGES.atBaseUrlRequired,
  });

const ZSmppSettings = z.object({
  kind: z.literal('smpp'),
  host: z
    .string({ error: PROVIDER_MESSAGES.smppHostRequired })
    .trim()
    .min(1, PROVIDER_MESSAGES.smppHostRequired)
    .max(253, 'Must be 253 characters or less')
    .regex(
      /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?)+$|^\[?[0-9A-Fa-f:]+\]?$/,
      PROVIDER_MESSAGES.smppHostInvalid,
    ),
  port: integer(1, 65_535, 'Port').default(PROVIDER_DEFAULTS.smpp.port),
  // SMPP 3.4: system_id at most 15 characters, password 8, system_type 12.
  systemId: z
    .string({ error: PROVIDER_MESSAGES.smppSystemIdRequired })
    .trim()
    .min(1, PROVIDER_MESSAGES.smppSystemIdRequired)
    .max(PROVIDER_LIMITS.smppSystemIdLength, 'System ID must be 15 characters or less'),
  password: ZSecretInput.refine(
    (value) => !value || value.length <= PROVIDER_LIMITS.smppPasswordLength,
    PROVIDER_MESSAGES.smppPasswordTooLong,
  ),
  systemType: optionalText(12),
  bindMode: z
    .enum(SMPP_BIND_MODES, { error: 'Bind mode must be transceiver or transmitter_receiver' })
    .default(PROVIDER_DEFAULTS.smpp.bindMode),
  messageIdType: z
    .enum(SMPP_MESSAGE_ID_TYPES, { error: 'Message ID type must be auto, same, hex_decimal or decimal_hex' })
    .default(PROVIDER_DEFAULTS.smpp.messageIdType),
  messagesPerSecond: integer(
    PROVIDER_LIMITS.smppMessagesPerSecond.min,
    PROVIDER_LIMITS.smppMessagesPerSecond.max,
    'Messages per second',
  ).default(PROVIDER_DEFAULTS.smpp.messagesPerSecond),
  window: integer(PROVIDER_LIMITS.smppWindow.min, PROVIDER_LIMITS.smppWindow.max, 'Window').default(
    PROVIDER_DEFAULTS.smpp.window,
  ),
  /** Null (blank): SMPP_SOURCE_ADDRESS_DEFAULTS by each sender's kind. */
  sourceTon: integer(PROVIDER_LIMITS.smppTon.min, PROVIDER_LIMITS.smppTon.max, 'Source TON')
    .nullish()
    .transform((v) => v ?? null),
  sourceNpi: integer(PROVIDER_LIMITS.smppNpi.min, PROVIDER_LIMITS.smppNpi.max, 'Source NPI')
    .nullish()
    .transform((v) => v ?? null),
});

/** The provider part of the company form: its kind and that kind's settings, checked per kind. */
export const ZProviderSettingsInput = z.discriminatedUnion(
  'kind',
  [ZSimulatorSettings, ZAfricasTalkingSettings, ZSmppSettings],
  { error: 'Provider kind must be simulator, africastalking or smpp' },
);
export type TProviderSettingsInput = z.input<typeof ZProviderSettingsInput>;
export type TProviderSettingsForm = z.output<typeof ZProviderSettingsInput>;

/** The provider as a GET shows it: every setting, secrets masked (null when not set). */
export const ZCompanyProvider = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('simulator'),
    acceptanceRate: z.number().nullable(),
    failureRate: z.number().nullable(),
    deliveryDelayMs: z.number().int().nullable(),
    messagesPerSecond: z.number().int().nullable(),
  }),
  z.object({
    kind: z.literal('africastalking'),
    username: z.string().nullable(),
    apiKey: z.string().nullable(),
    environment: z.enum(AT_ENVIRONMENTS),
    baseUrl: z.string().nullable(),
    senderId: z.string().nullable(),
    batchSize: z.number().int(),
    messagesPerSecond: z.number().int(),
  }),
  z.object({
    kind: z.literal('smpp'),
    host: z.string(),
    port: z.number().int(),
    systemId: z.string(),
    password: z.string().nullable(),
    systemType: z.string().nullable(),
    bindMode: z.enum(SMPP_BIND_MODES),
    messageIdType: z.enum(SMPP_MESSAGE_ID_TYPES),
    messagesPerSecond: z.number().int(),
    window: z.number().int(),
    sourceTon: z.number().int().nullable(),
    sourceNpi: z.number().int().nullable(),
  }),
]);
export type TCompanyProvider = z.infer<typeof ZCompanyProvider>;
