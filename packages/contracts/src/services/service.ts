import { z } from 'zod';
import { COMPANY_STATUSES } from '../admin/company.ts';
import { PROVIDER_MESSAGES, senderRefusal } from '../admin/company-provider.ts';
import { requiredText } from '../common/text.ts';

export const BILLING_TYPES = ['on_demand', 'package'] as const;
export type TBillingType = (typeof BILLING_TYPES)[number];
export const SERVICE_STATUSES = ['active', 'inactive', 'maintenance'] as const;
export type TServiceStatus = (typeof SERVICE_STATUSES)[number];

export const BILLING_TYPE_LABELS: Record<TBillingType, string> = {
  on_demand: 'On demand',
  package: 'Package',
};
export const SERVICE_STATUS_LABELS: Record<TServiceStatus, string> = {
  active: 'Active',
  inactive: 'Inactive',
  maintenance: 'Maintenance',
};

/** Keywords the provider callbacks read as commands, so no service may use them. */
export const RESERVED_KEYWORDS = ['STOP'] as const;

/** Spec sections 5, 6 and 8, word for word; the rest name rules the spec leaves to the server. */
export const SERVICE_MESSAGES = {
  nameRequired: 'Service name is required',
  shortcodeRequired: 'Short code is required',
  shortcodeFormat: 'Short code may contain only letters and digits',
  keywordRequired: 'Keyword is required',
  keywordFormat: 'Keyword must be one word of letters, digits, - or _',
  keywordReserved: 'STOP is reserved for opt-outs and cannot be a keyword',
  companyRequired: 'Company selection is required',
  companyNotFound: 'The selected company does not exist',
  contentManagerEdit: 'Content managers can view services but cannot create or edit them',
  contentManagerDelete: 'Content managers cannot delete services',
  duplicate: (shortcode: string, keyword: string) =>
    `The short code ${shortcode} with keyword ${keyword} is already used by another service`,
  deleteNeedsForce: (subscribers: number, messages: number) =>
    `This service has ${subscribers} active subscriber(s) and ${messages} message(s). ` +
    'Deleting it ends those subscriptions and keeps the messages without their service; repeat with force=true to confirm.',
  /** Its subscriptions and messages name it with its company: they cannot follow it to another one. */
  cannotMove: 'A service with subscribers or messages cannot move to another company',
  created: 'Service created successfully!',
  updated: 'Service updated successfully!',
  deleted: 'Service deleted successfully!',
  createFailed: 'Failed to create service',
  updateFailed: 'Failed to update service',
  deleteFailed: 'Failed to delete service. Please try again.',
  loadFailed: 'Failed to load services. Please try again later.',
  emptyAll: 'No services yet',
  emptyFiltered: 'No services found',
} as const;

export const ZService = z.object({
  id: z.number().int(),
  name: z.string(),
  shortcode: z.string(),
  shortCode: z.string(),
  keyword: z.string(),
  description: z.string(),
  billingType: z.enum(BILLING_TYPES),
  status: z.enum(SERVICE_STATUSES),
  companyId: z.number().int(),
  /** The company's status: a suspended or pending company's services cannot send. */
  company: z.object({ name: z.string(), status: z.enum(COMPANY_STATUSES) }),
  subscriber_count: z.number().int(),
  messageCount: z.number().int(),
  lastActivity: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TService = z.infer<typeof ZService>;

/** The service's sender on the network: letters make it alphanumeric, so 11 characters at most. */
const ZShortcode = requiredText(SERVICE_MESSAGES.shortcodeRequired, 20)
  .transform((value) => value.toUpperCase())
  .pipe(
    z
      .string()
      .regex(/^[A-Z0-9]+$/, SERVICE_MESSAGES.shortcodeFormat)
      .refine((value) => !senderRefusal(value), PROVIDER_MESSAGES.senderTooLong),
  );

const ZKeyword = requiredText(SERVICE_MESSAGES.keywordRequired, 30)
  .regex(/^[A-Za-z0-9_-]+$/, SERVICE_MESSAGES.keywordFormat)
  .refine((value) => !(RESERVED_KEYWORDS as readonly string[]).includes(value.toUpperCase()), {
    message: SERVICE_MESSAGES.keywordReserved,
  });

/**
 * The service form and the create/update payload: one schema, used by the console (zodResolver)
 * and the API. companyId is read only for system_admin; the API ignores it for everyone else.
 */
export const ZServiceForm = z.object({
  name: requiredText(SERVICE_MESSAGES.nameRequired, 120),
  shortcode: ZShortcode,
  keyword: ZKeyword,
  description: z.string().trim().max(500, 'Description must be 500 characters or less').default(''),
  billingType: z
    .enum(BILLING_TYPES, { error: 'Billing type must be on_demand or package' })
    .default('on_demand'),
  status: z
    .enum(SERVICE_STATUSES, { error: 'Status must be active, inactive or maintenance' })
    .default('active'),
  companyId: z
    .number({ error: SERVICE_MESSAGES.companyRequired })
    .int()
    .positive(SERVICE_MESSAGES.companyRequired)
    .nullable()
    .optional(),
});
export type TServiceFormInput = z.input<typeof ZServiceForm>;
export type TServiceFormValues = z.output<typeof ZServiceForm>;

/** The form as a system_admin fills it: the company is required. */
export const ZServiceFormForSystemAdmin = ZServiceForm.extend({
  companyId: z
    .number({ error: SERVICE_MESSAGES.companyRequired })
    .int()
    .positive(SERVICE_MESSAGES.companyRequired),
});

export const SERVICE_FORM_DEFAULTS = {
  name: '',
  shortcode: '',
  keyword: '',
  description: '',
  billingType: 'on_demand',
  status: 'active',
} as const satisfies TServiceFormInput;
