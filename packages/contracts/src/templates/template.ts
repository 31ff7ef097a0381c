import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { QUERY_ID_MESSAGES, ZOptionalQueryId } from '../common/pagination.ts';
import { containsNul, requiredText, TEXT_MESSAGES } from '../common/text.ts';
import { MESSAGE_MAX_LENGTH } from '../messages/message.ts';
import { parseTemplate } from './merge-fields.ts';

export const TEMPLATE_NAME_MAX_LENGTH = 100;
/** A company keeps at most this many templates: the Create Message picker lists them all. */
export const TEMPLATES_PER_COMPANY = 200;

export const TEMPLATE_MESSAGES = {
  nameRequired: 'Template name is required',
  bodyRequired: 'Template text is required',
  bodyTooLong: `Template text must be ${MESSAGE_MAX_LENGTH} characters or less`,
  duplicateName: (name: string) => `A template named ${name} already exists`,
  tooMany: `A company keeps at most ${TEMPLATES_PER_COMPANY} templates`,
  companyRequired: 'Company selection is required',
  contentManagerEdit: 'Content managers can use templates but cannot create, edit or delete them',
  created: 'Template saved',
  updated: 'Template updated',
  deleted: 'Template deleted',
  empty: 'No templates yet',
  emptyHint: 'Save a text with merge fields, such as Hi {{first_name|friend}}, to start messages from it',
  loadFailed: 'Failed to load templates',
} as const;

/** A template's text: the message's own rule (not blank, 160 characters) and well-formed placeholders. */
export const ZTemplateBody = z
  .string({ error: TEMPLATE_MESSAGES.bodyRequired })
  .refine((value) => value.trim().length > 0, TEMPLATE_MESSAGES.bodyRequired)
  .refine((value) => value.length <= MESSAGE_MAX_LENGTH, TEMPLATE_MESSAGES.bodyTooLong)
  .refine((value) => !containsNul(value), TEXT_MESSAGES.nulCharacter)
  .superRefine((value, issues) => {
    for (const message of parseTemplate(value).errors) issues.addIssue({ code: 'custom', message });
  });

export const ZTemplate = z.object({
  id: z.number().int(),
  name: z.string(),
  body: z.string(),
  /** The merge fields the text uses, sorted. */
  fields: z.array(z.string()),
  companyId: z.number().int(),
  company: z.object({ name: z.string() }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TTemplate = z.infer<typeof ZTemplate>;

/** POST /templates. companyId: a system_admin's choice (required for them), ignored for everyone else. */
export const ZCreateTemplateRequest = z.object({
  name: requiredText(TEMPLATE_MESSAGES.nameRequired, TEMPLATE_NAME_MAX_LENGTH),
  body: ZTemplateBody,
  companyId: z.number().int().positive().optional(),
});
export type TCreateTemplateRequest = z.input<typeof ZCreateTemplateRequest>;

/** PUT /templates/{id}: its name and text. */
export const ZUpdateTemplateRequest = z.object({
  name: requiredText(TEMPLATE_MESSAGES.nameRequired, TEMPLATE_NAME_MAX_LENGTH),
  body: ZTemplateBody,
});
export type TUpdateTemplateRequest = z.input<typeof ZUpdateTemplateRequest>;

/** GET /templates: every template of the company (a system_admin's: all, or one company's), by name. */
export const ZListTemplatesQuery = z.object({ companyId: ZOptionalQueryId(QUERY_ID_MESSAGES.companyId) });
export const ZListTemplatesData = z.object({ templates: z.array(ZTemplate) });
export type TListTemplatesData = z.infer<typeof ZListTemplatesData>;
export const ZListTemplatesResponse = successEnvelope(ZListTemplatesData);

export const ZTemplateResponse = successEnvelope(z.object({ template: ZTemplate }));
export const ZDeleteTemplateResponse = successEnvelope(
  z.object({ id: z.number().int(), deleted: z.literal(true) }),
);
