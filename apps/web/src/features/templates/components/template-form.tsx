import { MESSAGE_MAX_LENGTH } from '@sms/contracts/messages/message';
import { TEMPLATE_MESSAGES, type TTemplate, ZCreateTemplateRequest } from '@sms/contracts/templates/template';
import { type FormEvent, useState } from 'react';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { useCompanyOptions } from '../../../lib/company-options.ts';
import { useCreateTemplate, useUpdateTemplate } from '../api/templates.ts';
import { InsertFieldButtons } from './insert-field-buttons.tsx';
import { MergeText } from './merge-text.tsx';

type TTemplateFormProps = {
  /** The template edited; none: a new one. */
  template: TTemplate | null;
  /** system_admin: a new template names its company. */
  withCompany: boolean;
  onClose: () => void;
};

/** New or edited template: a name, a text with placeholders (checked as the API checks it) and its preview. */
export function TemplateForm({ template, withCompany, onClose }: TTemplateFormProps) {
  const { showToast } = useToast();
  const create = useCreateTemplate();
  const update = useUpdateTemplate();
  const companies = useCompanyOptions(withCompany && !template);
  const [name, setName] = useState(template?.name ?? '');
  const [body, setBody] = useState(template?.body ?? '');
  const [companyId, setCompanyId] = useState('');
  const [touched, setTouched] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);

  const parsed = ZCreateTemplateRequest.safeParse({
    name,
    body,
    ...(withCompany && companyId ? { companyId: Number(companyId) } : {}),
  });
  const errors: { name?: string; body?: string; companyId?: string } = {};
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as 'name' | 'body' | 'companyId';
      errors[field] ??= issue.message;
    }
  if (withCompany && !template && !companyId) errors.companyId = TEMPLATE_MESSAGES.companyRequired;
  const valid = Object.keys(errors).length === 0;
  const pending = create.isPending || update.isPending;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!valid) return;
    setServerError(null);
    try {
      if (template) await update.mutateAsync({ id: template.id, change: { name, body } });
      else await create.mutateAsync({ name, body, ...(withCompany ? { companyId: Number(companyId) } : {}) });
      showToast(template ? TEMPLATE_MESSAGES.updated : TEMPLATE_MESSAGES.created, 'success');
      onClose();
    } catch (error) {
      setServerError(getServerMessage(error) ?? 'Failed to save the template. Please try again.');
    }
  };

  return (
    <ModalDialog title={template ? 'Edit Template' : 'New Template'} onClose={onClose} widthClass="max-w-xl">
      <form onSubmit={submit} noValidate className="space-y-4" aria-label="Template">
        {serverError ? (
          <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
            {serverError}
          </p>
        ) : null}
        {withCompany && !template ? (
          <FormField
            id="template-company"
            label="Company"
            required
            error={touched ? errors.companyId : undefined}
          >
            <select
              id="template-company"
              className={INPUT_CLASSES}
              value={companyId}
              onChange={(event) => setCompanyId(event.target.value)}
            >
              <option value="">Select a company</option>
              {(companies.data ?? []).map((company) => (
                <option key={company.id} value={company.id}>
                  {company.name}
                </option>
              ))}
            </select>
          </FormField>
        ) : null}
        <FormField id="template-name" label="Name" required error={touched ? errors.name : undefined}>
          <input
            id="template-name"
            className={INPUT_CLASSES}
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder="Order ready"
          />
        </FormField>
        <FormField
          id="template-body"
          label="Text"
          required
          error={touched || body ? errors.body : undefined}
          hint="{{first_name}} puts in the subscriber's field; {{first_name|friend}} says friend to those without one."
        >
          <textarea
            id="template-body"
            rows={4}
            className={INPUT_CLASSES}
            value={body}
            onChange={(event) => setBody(event.target.value)}
            placeholder="Hi {{first_name|friend}}, your order is ready"
            aria-describedby="template-body-count"
          />
        </FormField>
        <div className="flex items-start justify-between gap-3">
          <InsertFieldButtons onInsert={(placeholder) => setBody((text) => `${text}${placeholder}`)} />
          <span
            id="template-body-count"
            className={`shrink-0 text-xs tabular-nums ${body.length > MESSAGE_MAX_LENGTH ? 'text-red-600' : 'text-slate-500'}`}
          >
            {body.length}/{MESSAGE_MAX_LENGTH}
          </span>
        </div>
        {body.trim() && !errors.body ? (
          <div
            className="rounded-lg bg-slate-50 p-3 text-sm text-slate-700"
            data-testid="template-form-preview"
          >
            <MergeText text={body} />
          </div>
        ) : null}
        <FormActions
          onCancel={onClose}
          isPending={pending}
          submitLabel={template ? 'Save Changes' : 'Save Template'}
          submitDisabled={touched && !valid}
        />
      </form>
    </ModalDialog>
  );
}
