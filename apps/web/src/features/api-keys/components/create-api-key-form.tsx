import { zodResolver } from '@hookform/resolvers/zod';
import { API_KEY_SCOPE_LABELS, API_KEY_SCOPES } from '@sms/contracts/api-keys/api-key';
import { type TCreateApiKeyRequest, ZCreateApiKeyRequest } from '@sms/contracts/api-keys/create-api-key';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { CheckboxCards } from '../../../components/checkbox-cards.tsx';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormError, FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';

type TCreateApiKeyValues = z.output<typeof ZCreateApiKeyRequest>;

type TCreateApiKeyFormProps = {
  onSubmit: (values: TCreateApiKeyValues) => Promise<unknown> | unknown;
  onCancel: () => void;
  isSubmitting: boolean;
  error: string | null;
};

const SCOPE_HINTS: Record<(typeof API_KEY_SCOPES)[number], string> = {
  'messages:send': 'Create, send, edit and cancel messages.',
  'messages:read': 'Read message logs, delivery reports and reports.',
  'subscribers:manage': 'List, import, subscribe and unsubscribe subscribers.',
};

/** A key's name and scopes; the same schema the server validates with. */
export function CreateApiKeyForm({ onSubmit, onCancel, isSubmitting, error }: TCreateApiKeyFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<TCreateApiKeyRequest, unknown, TCreateApiKeyValues>({
    resolver: zodResolver(ZCreateApiKeyRequest),
    defaultValues: { name: '', scopes: [] },
  });

  return (
    <form onSubmit={handleSubmit(onSubmit)} className="space-y-4" noValidate aria-label="Create API key">
      <FormError error={error} />
      <FormField
        id="api-key-name"
        label="Name"
        required
        error={errors.name?.message}
        hint="Say what uses it: audit entries name the key."
      >
        <input
          id="api-key-name"
          className={INPUT_CLASSES}
          placeholder="Billing system"
          autoComplete="off"
          {...register('name')}
        />
      </FormField>
      <CheckboxCards
        legend="Scopes"
        cards={API_KEY_SCOPES.map((scope) => ({
          value: scope,
          title: API_KEY_SCOPE_LABELS[scope],
          detail: SCOPE_HINTS[scope],
        }))}
        field={register('scopes')}
        error={errors.scopes?.message}
      />
      <FormActions
        onCancel={onCancel}
        isPending={isSubmitting}
        submitLabel="Create Key"
        pendingLabel="Creating..."
      />
    </form>
  );
}
