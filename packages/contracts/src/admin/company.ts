import { z } from 'zod';

export const COMPANY_STATUSES = ['active', 'suspended', 'pending', 'inactive'] as const;
export type TCompanyStatus = (typeof COMPANY_STATUSES)[number];

/** The status filter of the companies tab (spec: All Status, Active, Suspended, Pending). */
export const COMPANY_FILTER_STATUSES = ['active', 'suspended', 'pending'] as const;

/** The form offers three plans; 'professional' is only recognised (list badge). */
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
  onlyPendingActivate: 'Only pending companies can be activated',
  onlyActiveSuspend: 'Only active companies can be suspended',
} as const;

/** The spec's "simple address pattern". */
export const SIMPLE_EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A company as the API shows it: credentials only ever masked. */
export const ZCompany = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  phoneNumber: z.string(),
  address: z.string(),
  plan: z.enum(COMPANY_PLANS),
  status: z.enum(COMPANY_STATUSES),
  /** Masked ('••••••••abcd') or null when not set. */
  apiKey: z.string().nullable(),
  /** The provider's 'API Username', masked or null. */
  apiSecret: z.string().nullable(),
  packageName: z.string(),
  packageExpiresAt: z.string().nullable(),
  billingStatus: z.string(),
  userCount: z.number().int(),
  serviceCount: z.number().int(),
  subscriberCount: z.number().int(),
  lastActive: z.string().nullable(),
  createdAt: z.string(),
});
export type TCompany = z.infer<typeof ZCompany>;

const requiredField = (message: string, max: number) =>
  z.string({ error: message }).trim().min(1, message).max(max, `Must be ${max} characters or less`);

/** Provider credentials: blank or absent keeps the stored value (on edit) or leaves it unset (on create). */
const ZCredential = z
  .string()
  .trim()
  .max(500, 'Must be 500 characters or less')
  .optional()
  .transform((value) => (value ? value : undefined));

/** The company form (create and edit share it; spec section 5). */
export const ZCompanyForm = z.object({
  name: requiredField(COMPANY_MESSAGES.nameRequired, 200),
  email: requiredField(COMPANY_MESSAGES.emailRequired, 254).regex(
    SIMPLE_EMAIL_PATTERN,
    COMPANY_MESSAGES.emailInvalid,
  ),
  phoneNumber: requiredField(COMPANY_MESSAGES.phoneRequired, 40),
  address: requiredField(COMPANY_MESSAGES.addressRequired, 500),
  plan: z.enum(COMPANY_PLANS, { error: 'Plan must be basic, premium or enterprise' }).default('basic'),
  status: z
    .enum(COMPANY_STATUSES, { error: 'Status must be active, suspended, pending or inactive' })
    .default('active'),
  apiKey: ZCredential,
  apiSecret: ZCredential,
});
export type TCompanyFormInput = z.input<typeof ZCompanyForm>;
export type TCompanyForm = z.output<typeof ZCompanyForm>;
