import { zodResolver } from '@hookform/resolvers/zod';
import {
  type TCreateWebhookRequest,
  type TWebhookEndpoint,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_EVENT_TYPES,
  ZCreateWebhookRequest,
} from '@sms/contracts/webhooks/webhook';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import { XCircleIcon } from '../../../components/icons.tsx';

export type TEndpointFormValues = z.output<typeof ZCreateWebhookRequest>;

type TEndpointFormProps = {
  endpoint?: TWebhookEndpoint;
  onSubmit: (values: TEndpointFormValues) => Promise<unknown> | unknown;
  onCancel: () => void;
  isSubmitting: boolean;
  error: string | null;
};

/** An endpoint's URL, description and events; the same schema the server validates with. */
export function EndpointForm({ endpoint, onSubmit, onCancel, isSubmitting, error }: TEndpointFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<TCreateWebhookRequest, unknown, TEndpointFormValues>({
    resolver: zodResolver(ZCreateWebhookRequest),
    defaultValues: {
      url: endpoint?.url ?? '',
      description: endpoint?.description ?? '',
      eventTypes: endpoint?.eventTypes ?? [],
    },
  });

  return (
    <form
      onSubmit={handleSubmit(onSubmit)}
      className="space-y-4"
      noValidate
      aria-label={endpoint ? 'Edit webhook endpoint' : 'Add webhook endpoint'}
    >
      {error ? (
        <div
          role="alert"
          className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700"
        >
          <XCircleIcon className="mt-0.5 size-4 shrink-0" />
          <p>{error}</p>
        </div>
      ) : null}
      <FormField
        id="webhook-url"
        label="Endpoint URL"
        required
        error={errors.url?.message}
        hint="An https:// address on the internet that answers 2xx once it has stored the events."
      >
        <input
          id="webhook-url"
          className={INPUT_CLASSES}
          placeholder="https://example.com/webhooks/sms"
          autoComplete="off"
          {...register('url')}
        />
      </FormField>
      <FormField id="webhook-description" label="Description" error={errors.description?.message}>
        <input
          id="webhook-description"
          className={INPUT_CLASSES}
          placeholder="CRM sync"
          autoComplete="off"
          {...register('description')}
        />
      </FormField>
      <fieldset>
        <legend className="block text-sm font-medium text-slate-700">
          Events<span className="text-red-600"> *</span>
        </legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-2">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label
              key={type}
              className="flex cursor-pointer items-start gap-3 rounded-lg p-2 ring-1 ring-inset ring-slate-200 hover:bg-slate-50"
            >
              <input
                type="checkbox"
                value={type}
                className="mt-0.5 size-4 rounded border-slate-300 text-indigo-600"
                {...register('eventTypes')}
              />
              <span>
                <span className="block text-sm font-medium text-slate-900">{WEBHOOK_EVENT_LABELS[type]}</span>
                <span className="block font-mono text-xs text-slate-500">{type}</span>
              </span>
            </label>
          ))}
        </div>
        {errors.eventTypes?.message ? (
          <p className="mt-1 text-xs text-red-600" role="alert">
            {errors.eventTypes.message}
          </p>
        ) : null}
      </fieldset>
      <FormActions
        onCancel={onCancel}
        isPending={isSubmitting}
        submitLabel={endpoint ? 'Save Endpoint' : 'Add Endpoint'}
        pendingLabel="Saving..."
      />
    </form>
  );
}
