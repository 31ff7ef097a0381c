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
import { CheckboxCards } from '../../../components/checkbox-cards.tsx';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormError, FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';

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
      <FormError error={error} />
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
      <CheckboxCards
        legend="Events"
        cards={WEBHOOK_EVENT_TYPES.map((type) => ({
          value: type,
          title: WEBHOOK_EVENT_LABELS[type],
          detail: <span className="font-mono">{type}</span>,
        }))}
        field={register('eventTypes')}
        error={errors.eventTypes?.message}
        twoColumns
      />
      <FormActions
        onCancel={onCancel}
        isPending={isSubmitting}
        submitLabel={endpoint ? 'Save Endpoint' : 'Add Endpoint'}
        pendingLabel="Saving..."
      />
    </form>
  );
}
