import { z } from 'zod';
import { ZCompanyProvider, ZProviderSettingsInput, ZSecretInput } from './company-provider.ts';

export const COMPANY_STATUSES = ['active', 'suspended', 'pending', 'inactive'] as const;
export type TCompanyStatus = (typeof COMPANY_STATUSES)[number];

/** The status filter of the companies tab (spec: All Status, Active, Suspended, Pending). */
export const COMPANY_FILTER_STATUSES = ['active', 'suspended', 'pending'] as const;

/**
 * The form offers three plans (spec section 5); the API accepts the catalogue's four, since the
 * list badge also knows 'professional' and a company on it must stay savable.
 */
export const COMPANY_FORM_PLANS = ['basic', 'premium', 'enterprise'] as const;
export const COMPANY_PLANS = ['basic', 'premium', 'enterprise', 'professional'] as const;
export type TCompanyPlan = (typeof COMPANY_PLANS)[number];

export const COMPANY_PAGE_SIZE = 10;

export const COMPANY_MESSAGES = {
  nameRequired: 'Company name is required',
  emailRequired: 'Email is required',
  emailInvalid: 'Please enter a valid email address',
  phoneRequired: 'Phone number is required',
  addressRequired: 'Address is required',
  saveFailed: 'An error occurred while saving the company',
  loadFailed: 'Failed to load companies',
  confirmDelete: 'Are you sure you want to delete this company? This action cannot be undone.',
  confirmSuspend: 'Are you sure you want to suspend this company?',
  empty: 'No companies found',
  notFound: 'Company not found',
  planInvalid: 'Plan must be basic, premium, enterprise or professional',
  onlyPendingActivate: 'Only pending companies can be activated',
  onlyActiveSuspend: 'Only active companies can be suspended',
  limitInvalid: (label: string) =>
    `${label} must be a whole number from 0 to ${COMPANY_LIMIT_MAX.toLocaleString('en-US')}, or blank for the plan's`,
  limitHint: (planLimit: number) =>
    `Leave blank to use the plan's limit (${planLimit.toLocaleString('en-US')}).`,
} as const;

/** A company's own limits (a negotiated deal) override its plan's; the largest one allowed. */
export const COMPANY_LIMIT_MAX = 1_000_000_000;

/** The limits a company can be given, as the form labels them. */
export const COMPANY_LIMIT_LABELS = {
  messagesLimit: 'Monthly message limit',
  subscribersLimit: 'Subscriber limit',
  servicesLimit: 'Service limit',
} as const;
export type TCompanyLimitField = keyof typeof COMPANY_LIMIT_LABELS;
export const COMPANY_LIMIT_FIELDS = Object.keys(COMPANY_LIMIT_LABELS) as TCompanyLimitField[];

/** Each limit the company works under (`limits`: its own where set, else its plan's) and its own (`ownLimits`). */
const ZLimits = z.object({
  messagesLimit: z.number().int(),
  subscribersLimit: z.number().int(),
  servicesLimit: z.number().int(),
});
const ZOwnLimits = z.object({
  messagesLimit: z.number().int().nullable(),
  subscribersLimit: z.number().int().nullable(),
  servicesLimit: z.number().int().nullable(),
});

/** The spec's "simple address pattern". */
export const SIMPLE_EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A company as the API shows it: secrets only ever masked. */
export const ZCompany = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  phoneNumber: z.string(),
  address: z.string(),
  plan: z.enum(COMPANY_PLANS),
  status: z.enum(COMPANY_STATUSES),
  /** Africa's Talking's API key, masked ('••••••••abcd', or bullets only when short), or null. */
  apiKey: z.string().nullable(),
  /** Africa's Talking's 'API Username' (not a secret, shown as it is), or null. */
  apiSecret: z.string().nullable(),
  /** The provider the company sends through, with its settings (secrets masked). */
  provider: ZCompanyProvider,
  /** While the provider refuses or cannot be reached for the whole account: since when, and why. */
  providerFailure: z.object({ since: z.string(), reason: z.string() }).nullable(),
  packageName: z.string(),
  packageExpiresAt: z.string().nullable(),
  billingStatus: z.string(),
  /** The limits the server enforces: the company's own where set, else its plan's. */
  limits: ZLimits,
  /** The company's own limits; null: its plan's. */
  ownLimits: ZOwnLimits,
  userCount: z.number().int(),
  serviceCount: z.number().int(),
  subscriberCount: z.number().int(),
  lastActive: z.string().nullable(),
  createdAt: z.string(),
});
export type TCompany = z.infer<typeof ZCompany>;

const requiredField = (message: string, max: number) =>
  z.string({ error: message }).trim().min(1, message).max(max, `Must be ${max} characters or less`);

/** Africa's Talking's username: blank or absent keeps it, null clears it. */
const ZUsernameInput = z
  .string()
  .trim()
  .max(100, 'Must be 100 characters or less')
  .nullable()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

/** A company's own limit: a whole number; null (or blank) is the plan's; absent keeps the current one. */
const limitInput = (field: TCompanyLimitField) => {
  const message = COMPANY_MESSAGES.limitInvalid(COMPANY_LIMIT_LABELS[field]);
  return z
    .number({ error: message })
    .int(message)
    .min(0, message)
    .max(COMPANY_LIMIT_MAX, message)
    .nullable()
    .optional();
};

/** The company form (create and edit share it; spec section 5). */
export const ZCompanyForm = z.object({
  name: requiredField(COMPANY_MESSAGES.nameRequired, 200),
  email: requiredField(COMPANY_MESSAGES.emailRequired, 254).regex(
    SIMPLE_EMAIL_PATTERN,
    COMPANY_MESSAGES.emailInvalid,
  ),
  phoneNumber: requiredField(COMPANY_MESSAGES.phoneRequired, 40),
  address: requiredField(COMPANY_MESSAGES.addressRequired, 500),
  plan: z.enum(COMPANY_PLANS, { error: COMPANY_MESSAGES.planInvalid }).default('basic'),
  status: z
    .enum(COMPANY_STATUSES, { error: 'Status must be active, suspended, pending or inactive' })
    .default('active'),
  /**
   * The spec's credential fields, which are Africa's Talking's (kept whichever provider is in use):
   * the API key follows the secret rule (blank or the mask keeps it, null clears it), the username
   * keeps on blank and clears on null.
   */
  apiKey: ZSecretInput,
  apiSecret: ZUsernameInput,
  /** The provider kind to use and its settings; absent keeps the current provider. */
  provider: ZProviderSettingsInput.optional(),
  messagesLimit: limitInput('messagesLimit'),
  subscribersLimit: limitInput('subscribersLimit'),
  servicesLimit: limitInput('servicesLimit'),
});
export type TCompanyFormInput = z.input<typeof ZCompanyForm>;
export type TCompanyForm = z.output<typeof ZCompanyForm>;
