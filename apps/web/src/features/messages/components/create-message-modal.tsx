import { DEFAULT_PLAN_LABEL, MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import {
  listSendFormErrors,
  revalidateSendFormField,
  SEND_MESSAGE_FORM_DEFAULTS,
  type TSendFormErrors,
  type TSendMessageFormValues,
  todayInputValue,
  toSendBulkMessageRequest,
  validateSendMessageForm,
} from '@sms/contracts/messages/send-message-form';
import { BILLING_TYPE_LABELS, type TService } from '@sms/contracts/services/service';
import type { TExpansionBound } from '@sms/contracts/templates/merge-fields';
import { longestExpansion, parseTemplate } from '@sms/contracts/templates/merge-fields';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { INPUT_CLASSES } from '../../../components/form-field.tsx';
import { XCircleIcon } from '../../../components/icons.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { readerTimeZone } from '../../../lib/format-date.ts';
import { useTemplates } from '../../templates/api/templates.ts';
import { InsertFieldButtons } from '../../templates/components/insert-field-buttons.tsx';
import { useSendServices } from '../api/list-send-services.ts';
import { useMergePreview } from '../api/merge-preview.ts';
import { useRecipientPreview } from '../api/preview-recipients.ts';
import { useSendBulkMessage } from '../api/send-bulk-message.ts';
import { describeMessagesError, describeSendFailure } from '../lib/message-errors.ts';
import { MergePreview } from './merge-preview.tsx';
import { MessageCounter } from './message-counter.tsx';

type TCreateMessageModalProps = {
  /** system_admin: services of every company, each naming its company. */
  acrossCompanies: boolean;
  onClose: () => void;
  /** Injected by tests; the send form's "now". */
  now?: () => Date;
};

type TField = Exclude<keyof TSendMessageFormValues, 'serviceIds'> | 'serviceIds';

const plural = (count: number, word: string) => `${count.toLocaleString()} ${word}(s)`;

/** The message's error from the longest text alone (its other rules already showed nothing). */
function validateLongest(values: TSendMessageFormValues, now: Date, longest: TExpansionBound | null) {
  if (!longest || values.message.trim() === '') return {};
  const message = validateSendMessageForm(values, 'change', now, longest).message;
  return message ? { message } : {};
}

/** One idempotency key per submission: the same payload sent again (a retry, a double click) reuses it. */
function useSubmissionKey() {
  const last = useRef<{ payload: string; key: string } | null>(null);
  return (payload: unknown) => {
    const text = JSON.stringify(payload);
    if (last.current?.payload !== text) last.current = { payload: text, key: crypto.randomUUID() };
    return last.current.key;
  };
}

export function CreateMessageModal({
  acrossCompanies,
  onClose,
  now = () => new Date(),
}: TCreateMessageModalProps) {
  const ids = useId();
  const { showToast } = useToast();
  const services = useSendServices();
  const send = useSendBulkMessage();
  const keyFor = useSubmissionKey();
  const submitting = useRef(false);
  const [values, setValues] = useState<TSendMessageFormValues>(SEND_MESSAGE_FORM_DEFAULTS);
  const [errors, setErrors] = useState<TSendFormErrors>({});
  const [sendError, setSendError] = useState<string | null>(null);
  // The modal body scrolls: a refused submit brings its error summary (or the send error) into view.
  const [refusals, setRefusals] = useState(0);
  const problemsRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (refusals > 0) problemsRef.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [refusals]);

  const preview = useRecipientPreview(values.serviceIds);
  const recipients =
    values.serviceIds.length > 0 && preview.data
      ? { count: preview.data.recipientCount, exact: preview.data.exact }
      : null;

  // Merge fields: the server reads what the chosen recipients hold for them; the longest text
  // follows by the rule the send applies (contracts), and the preview renders three real recipients.
  const templates = useTemplates();
  const [templateId, setTemplateId] = useState('');
  const parsed = parseTemplate(values.message);
  const mergeFields = parsed.errors.length === 0 ? parsed.fields : [];
  const merge = useMergePreview(values.serviceIds, mergeFields);
  const mergeData = mergeFields.length > 0 && values.serviceIds.length > 0 ? merge.data : undefined;
  const longest = mergeData ? longestExpansion(parsed, mergeData.fields) : null;

  const change = <K extends TField>(field: K, value: TSendMessageFormValues[K]) => {
    const next = { ...values, [field]: value };
    setValues(next);
    setErrors((current) => revalidateSendFormField(current, field, next, now()));
  };

  const list = services.data?.services ?? [];
  const selected = list.filter((service) => values.serviceIds.includes(service.id));
  // The server sends one message for one company: once a service is picked, other companies' wait.
  const lockedCompanyId = acrossCompanies && selected.length > 0 ? selected[0].companyId : null;
  const toggleService = (service: TService) => {
    const has = values.serviceIds.includes(service.id);
    change(
      'serviceIds',
      has ? values.serviceIds.filter((id) => id !== service.id) : [...values.serviceIds, service.id],
    );
  };

  // The longest text is known once the server answered: its rule joins the message's own.
  const shownErrors = errors.message ? errors : { ...errors, ...validateLongest(values, now(), longest) };
  const errorList = listSendFormErrors(shownErrors);
  const scheduled = values.scheduleType === 'scheduled';
  const submitLabel = scheduled ? 'Schedule Message' : 'Send Message Now';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting.current) return;
    const found = validateSendMessageForm(values, 'submit', now());
    setErrors(found);
    if (
      listSendFormErrors({ ...found, ...(found.message ? {} : validateLongest(values, now(), longest)) })
        .length > 0
    ) {
      setRefusals((count) => count + 1);
      return;
    }
    const request = toSendBulkMessageRequest(values, now());
    submitting.current = true;
    setSendError(null);
    try {
      await send.mutateAsync({ request, idempotencyKey: keyFor(request) });
      showToast(MESSAGE_MESSAGES.sent, 'success');
      onClose();
    } catch (error) {
      const text = describeSendFailure(error);
      setSendError(text);
      setRefusals((count) => count + 1);
      showToast(text, 'error');
    } finally {
      submitting.current = false;
    }
  };

  const footer = (
    <>
      <Button variant="secondary" onClick={onClose} disabled={send.isPending}>
        Cancel
      </Button>
      <Button type="submit" form={`${ids}-form`} disabled={send.isPending || errorList.length > 0}>
        {send.isPending ? (scheduled ? 'Scheduling...' : 'Sending...') : submitLabel}
      </Button>
    </>
  );

  return (
    <ModalDialog title="Create New Message" onClose={onClose} widthClass="max-w-2xl" footer={footer}>
      <form id={`${ids}-form`} onSubmit={submit} noValidate className="space-y-6" aria-label="Create message">
        <p className="text-sm text-slate-600">
          {acrossCompanies
            ? 'Send messages to subscribers across all companies'
            : 'Send messages to your company subscribers instantly or schedule for later'}
        </p>

        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold text-slate-900">Select Target Services</legend>
          {services.isPending ? (
            <div className="flex items-center gap-2 text-sm text-slate-500">
              <Spinner className="size-4" label="Loading services" /> Loading services...
            </div>
          ) : services.isError ? (
            <div role="alert" className="flex items-center justify-between gap-3 text-sm text-red-700">
              <p>{MESSAGE_MESSAGES.servicesLoadFailed(describeMessagesError(services.error))}</p>
              <Button variant="secondary" size="sm" onClick={() => services.refetch()}>
                Retry
              </Button>
            </div>
          ) : list.length === 0 ? (
            <div className="rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center">
              <p className="text-sm font-medium text-slate-900">No services available</p>
              <p className="mt-1 text-sm text-slate-500">Create a service first to send messages</p>
            </div>
          ) : (
            <>
              <ul className="max-h-60 divide-y divide-slate-100 overflow-y-auto rounded-lg border border-slate-200">
                {list.map((service) => {
                  // A suspended or pending company cannot send: its services read like inactive ones.
                  const companyHeld = service.company.status !== 'active';
                  const inactive = service.status !== 'active' || companyHeld;
                  const why =
                    service.status !== 'active' ? service.status : `company ${service.company.status}`;
                  const otherCompany = lockedCompanyId !== null && service.companyId !== lockedCompanyId;
                  const checked = values.serviceIds.includes(service.id);
                  const disabled = !checked && (inactive || otherCompany);
                  return (
                    <li key={service.id}>
                      <label
                        className={`flex items-start gap-3 px-4 py-3 ${disabled ? 'cursor-not-allowed opacity-60' : 'cursor-pointer hover:bg-slate-50'}`}
                      >
                        <input
                          type="checkbox"
                          className="mt-1 size-4 rounded border-slate-300 text-indigo-600"
                          checked={checked}
                          disabled={disabled}
                          onChange={() => toggleService(service)}
                          aria-describedby={`${ids}-service-${service.id}`}
                        />
                        <span className="min-w-0 flex-1">
                          <span className="block text-sm font-medium text-slate-900">{service.name}</span>
                          <span id={`${ids}-service-${service.id}`} className="block text-xs text-slate-500">
                            {acrossCompanies ? `${service.company.name} · ` : ''}
                            {services.isFetching
                              ? 'Loading...'
                              : plural(service.subscriber_count, 'active subscriber')}
                            {inactive ? ` · ${why}, cannot send` : ''}
                            {otherCompany && !inactive ? ' · another company' : ''}
                          </span>
                        </span>
                        <span className="shrink-0 rounded-md bg-slate-100 px-2 py-0.5 text-xs text-slate-600">
                          {BILLING_TYPE_LABELS[service.billingType] ?? DEFAULT_PLAN_LABEL}
                        </span>
                      </label>
                    </li>
                  );
                })}
              </ul>
              <p className="text-xs text-slate-600">{plural(values.serviceIds.length, 'service')} selected</p>
            </>
          )}
        </fieldset>

        <fieldset className="space-y-2">
          <legend className="text-sm font-semibold text-slate-900">Compose Your Message</legend>
          {(templates.data?.templates.length ?? 0) > 0 ? (
            <label className="flex items-center gap-2 text-sm text-slate-700">
              Start from a template
              <select
                value={templateId}
                onChange={(event) => {
                  setTemplateId(event.target.value);
                  const chosen = templates.data?.templates.find(
                    (item) => String(item.id) === event.target.value,
                  );
                  if (chosen) change('message', chosen.body);
                }}
                className={`${INPUT_CLASSES} w-auto flex-1`}
                aria-label="Start from a template"
              >
                <option value="">Blank message</option>
                {(templates.data?.templates ?? [])
                  .filter((item) => lockedCompanyId === null || item.companyId === lockedCompanyId)
                  .map((item) => (
                    <option key={item.id} value={item.id}>
                      {acrossCompanies ? `${item.name} (${item.company.name})` : item.name}
                    </option>
                  ))}
              </select>
            </label>
          ) : null}
          <label htmlFor={`${ids}-message`} className="sr-only">
            Message
          </label>
          <textarea
            id={`${ids}-message`}
            rows={4}
            value={values.message}
            onChange={(event) => change('message', event.target.value)}
            placeholder="Type your message..."
            className={INPUT_CLASSES}
            aria-invalid={errors.message ? true : undefined}
            aria-describedby={`${ids}-counter`}
          />
          <InsertFieldButtons
            onInsert={(placeholder) => change('message', `${values.message}${placeholder}`)}
          />
          <MessageCounter
            id={`${ids}-counter`}
            text={values.message}
            recipients={recipients}
            longest={longest}
          />
          {mergeFields.length > 0 ? (
            <MergePreview
              template={parsed}
              samples={mergeData?.samples ?? null}
              servicesChosen={values.serviceIds.length > 0}
              loading={merge.isFetching}
            />
          ) : null}
        </fieldset>

        <fieldset className="space-y-2">
          <legend className="text-sm font-semibold text-slate-900">Delivery Timing</legend>
          <div className="flex gap-6">
            {(['now', 'scheduled'] as const).map((type) => (
              <label key={type} className="flex items-center gap-2 text-sm text-slate-700">
                <input
                  type="radio"
                  name={`${ids}-timing`}
                  value={type}
                  checked={values.scheduleType === type}
                  onChange={() => change('scheduleType', type)}
                  className="size-4 border-slate-300 text-indigo-600"
                />
                {type === 'now' ? 'Send Now' : 'Schedule'}
              </label>
            ))}
          </div>
        </fieldset>

        {scheduled ? (
          <fieldset className="space-y-2">
            <legend className="text-sm font-semibold text-slate-900">Schedule Details</legend>
            <div className="grid gap-4 sm:grid-cols-2">
              <label className="block text-sm text-slate-700">
                Date
                <input
                  type="date"
                  min={todayInputValue(now())}
                  value={values.scheduledDate}
                  onChange={(event) => change('scheduledDate', event.target.value)}
                  className={`${INPUT_CLASSES} mt-1`}
                  aria-invalid={errors.scheduledDate ? true : undefined}
                />
              </label>
              <label className="block text-sm text-slate-700">
                Time
                <input
                  type="time"
                  value={values.scheduledTime}
                  onChange={(event) => change('scheduledTime', event.target.value)}
                  className={`${INPUT_CLASSES} mt-1`}
                  aria-invalid={errors.scheduledTime ? true : undefined}
                />
              </label>
            </div>
            <p className="text-xs text-slate-500" data-testid="schedule-time-zone">
              In your time zone: {readerTimeZone()}
            </p>
          </fieldset>
        ) : null}

        <div ref={problemsRef} className="space-y-3 empty:hidden">
          {sendError ? (
            <div
              role="alert"
              className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700"
            >
              <XCircleIcon className="mt-0.5 size-4 shrink-0" />
              <p>{sendError}</p>
            </div>
          ) : null}
          {errorList.length > 0 ? (
            <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
              <p className="font-medium">Please fix the following errors:</p>
              <ul className="mt-1 list-disc pl-5">
                {errorList.map((text) => (
                  <li key={text}>{text}</li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      </form>
    </ModalDialog>
  );
}
