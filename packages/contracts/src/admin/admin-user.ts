import { z } from 'zod';
import { emailAddress } from '../auth/email.ts';
import { newPassword, PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES, passwordProblem } from '../auth/password.ts';
import { ROLES } from '../auth/roles.ts';
import { USER_STATUSES } from '../auth/user.ts';

export const USER_PAGE_SIZE = 10;
/** The company dropdown of the user form loads up to this many companies. */
export const USER_FORM_COMPANY_LIMIT = 100;

export const USER_MESSAGES = {
  requiredFields: 'Please fill all required fields',
  companyRequired: 'Company is required for this role',
  emailInvalid: 'Please enter a valid email address',
  passwordTooShort: PASSWORD_MESSAGES.tooShort,
  emailTaken: 'A user with this email already exists',
  companyMissing: 'The selected company does not exist',
  formFailed: 'An error occurred',
  confirmDelete: 'Are you sure you want to delete this user?',
  empty: 'No users found',
  notFound: 'User not found',
  cannotDeleteSelf: 'You cannot delete your own account',
  cannotDemoteSelf: 'You cannot remove your own system administrator role',
  cannotDeactivateSelf: 'You cannot deactivate or suspend your own account',
  lastAdmin: 'At least one active system administrator must remain',
} as const;

const required = (max: number) =>
  z
    .string({ error: USER_MESSAGES.requiredFields })
    .trim()
    .min(1, USER_MESSAGES.requiredFields)
    .max(max, `Must be ${max} characters or less`);

const userFields = {
  name: required(200),
  email: emailAddress({ required: USER_MESSAGES.requiredFields, invalid: USER_MESSAGES.emailInvalid }),
  role: z
    .enum(ROLES, { error: 'Role must be one of system_admin, company_admin, content_manager, viewer' })
    .default('viewer'),
  // The form's select sends '' for "no company".
  companyId: z.preprocess(
    (value) => (value === '' || value === undefined ? null : value),
    z.coerce
      .number({ error: USER_MESSAGES.companyRequired })
      .int(USER_MESSAGES.companyRequired)
      .positive(USER_MESSAGES.companyRequired)
      .nullable(),
  ),
  status: z.enum(USER_STATUSES, { error: 'Status must be active, inactive or suspended' }).default('active'),
};

/** Company roles need a company; a system_admin never has one (spec section 5). */
function withCompanyRule<T extends { role: string; companyId: number | null }>(value: T) {
  return value.role === 'system_admin' ? { ...value, companyId: null } : value;
}
const companyRule = (value: { role: string; companyId: number | null }) =>
  value.role === 'system_admin' || value.companyId !== null;
const companyIssue = { message: USER_MESSAGES.companyRequired, path: ['companyId'] };

const password = newPassword(USER_MESSAGES.requiredFields);

export const ZCreateUserForm = z
  .object({ ...userFields, password })
  .refine(companyRule, companyIssue)
  .transform(withCompanyRule);

/** On edit a blank password is omitted and keeps the current one. */
export const ZUpdateUserForm = z
  .object({
    ...userFields,
    password: z
      .string()
      .max(PASSWORD_MAX_LENGTH, PASSWORD_MESSAGES.tooLong)
      .optional()
      .superRefine((value, context) => {
        const problem = value ? passwordProblem(value) : null;
        if (problem) context.addIssue({ code: 'custom', message: problem });
      })
      .transform((value) => (value ? value : undefined)),
  })
  .refine(companyRule, companyIssue)
  .transform(withCompanyRule);

export type TCreateUserFormInput = z.input<typeof ZCreateUserForm>;
export type TUpdateUserFormInput = z.input<typeof ZUpdateUserForm>;
