import { zodResolver } from '@hookform/resolvers/zod';
import { API_KEY_SCOPE_LABELS, API_KEY_SCOPES } from '@sms/contracts/api-keys/api-key';
import { type TCreateApiKeyRequest, ZCreateApiKeyRequest } from '@sms/contracts/api-keys/create-api-key';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import { XCircleIcon } from '../../../components/icons.tsx';

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
      <fieldset>
        <legend className="block text-sm font-medium text-slate-700">
          Scopes<span className="text-red-600"> *</span>
        </legend>
        <div className="mt-2 space-y-2">
          {API_KEY_SCOPES.map((scope) => (
            <label
              key={scope}
              className="flex cursor-pointer items-start gap-3 rounded-lg p-2 ring-1 ring-inset ring-slate-200 hover:bg-slate-50"
            >
              <input
                type="checkbox"
                value={scope}
                className="mt-0.5 size-4 rounded border-slate-300 text-indigo-600"
                {...register('scopes')}
              />
              <span>
                <span className="block text-sm font-medium text-slate-900">
                  {API_KEY_SCOPE_LABELS[scope]}
                </span>
                <span className="block text-xs text-slate-500">{SCOPE_HINTS[scope]}</span>
              </span>
            </label>
          ))}
        </div>
        {errors.scopes?.message ? (
          <p className="mt-1 text-xs text-red-600" role="alert">
            {errors.scopes.message}
          </p>
        ) : null}
      </fieldset>
      <FormActions
        onCancel={onCancel}
        isPending={isSubmitting}
        submitLabel="Create Key"
        pendingLabel="Creating..."
      />
    </form>
  );
}
