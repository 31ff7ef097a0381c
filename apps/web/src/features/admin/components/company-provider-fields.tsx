import type { TCompany, TCompanyForm } from '@sms/contracts/admin/company';
import {
  AT_ENVIRONMENT_LABELS,
  AT_ENVIRONMENTS,
  PROVIDER_DEFAULTS,
  PROVIDER_KIND_LABELS,
  PROVIDER_KINDS,
  PROVIDER_LIMITS,
  SMPP_BIND_MODE_LABELS,
  SMPP_BIND_MODES,
  SMPP_MESSAGE_ID_TYPE_LABELS,
  SMPP_MESSAGE_ID_TYPES,
  SMPP_SOURCE_ADDRESS_DEFAULTS,
} from '@sms/contracts/admin/company-provider';
import { type Control, type FieldErrors, type UseFormRegister, useWatch } from 'react-hook-form';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import type { TCompanyFormState } from './company-form-state.ts';

type TProps = {
  company?: TCompany;
  register: UseFormRegister<TCompanyFormState>;
  control: Control<TCompanyFormState, unknown, TCompanyForm>;
  errors: FieldErrors<TCompanyFormState>;
};

const count = (n: number) => n.toLocaleString('en-US');
/** The pace fields' default and ceiling, from the one place the rules live. */
const SMPP_RATE_HINT = `Default ${count(PROVIDER_DEFAULTS.smpp.messagesPerSecond)}; at most ${count(PROVIDER_LIMITS.smppMessagesPerSecond.max)}.`;
const SMPP_WINDOW_HINT = `Default ${count(PROVIDER_DEFAULTS.smpp.window)}; at most ${count(PROVIDER_LIMITS.smppWindow.max)}.`;

const { alphanumeric, shortCode, international } = SMPP_SOURCE_ADDRESS_DEFAULTS;
const SOURCE_DEFAULTS_HINT = `Blank: by sender, ${alphanumeric.ton}/${alphanumeric.npi} for letters, ${shortCode.ton}/${shortCode.npi} for a short code, ${international.ton}/${international.npi} for an international number (TON/NPI).`;

/** A stored secret: the mask the API returned, and that blank keeps it. */
function secretHint(mask: string | null | undefined, unsetHint: string) {
  return mask ? `Current: ${mask}. Leave blank to keep it.` : unsetHint;
}

/**
 * The company's SMS provider: a kind and that kind's own settings. Secrets are password inputs
 * that start blank; blank keeps what is stored.
 */
export function CompanyProviderFields({ company, register, control, errors }: TProps) {
  const [kind, environment] = useWatch({
    control,
    name: ['provider.kind', 'provider.africastalking.environment'],
  });
  const providerErrors = errors.provider;
  const current = company?.provider;

  return (
    <fieldset className="space-y-3 rounded-lg border border-slate-200 p-4">
      <legend className="px-1 text-sm font-medium text-slate-700">SMS provider</legend>
      <FormField id="company-provider-kind" label="Provider" error={providerErrors?.kind?.message}>
        <select id="company-provider-kind" className={INPUT_CLASSES} {...register('provider.kind')}>
          {PROVIDER_KINDS.map((value) => (
            <option key={value} value={value}>
              {PROVIDER_KIND_LABELS[value]}
            </option>
          ))}
        </select>
      </FormField>

      {kind === 'simulator' ? (
        <div className="grid gap-3 sm:grid-cols-2" data-testid="provider-simulator">
          <p className="text-xs text-slate-500 sm:col-span-2">
            Sends nothing to real phones: accepts, fails and reports deliveries as set here. Blank fields use
            the platform's defaults.
          </p>
          <NumberField
            id="company-simulator-acceptance"
            label="Acceptance rate (0 to 1)"
            step="0.01"
            placeholder="Platform default"
            error={providerErrors?.simulator?.acceptanceRate?.message}
            {...register('provider.simulator.acceptanceRate')}
          />
          <NumberField
            id="company-simulator-failure"
            label="Failure rate (0 to 1)"
            step="0.01"
            placeholder="Platform default"
            error={providerErrors?.simulator?.failureRate?.message}
            {...register('provider.simulator.failureRate')}
          />
          <NumberField
            id="company-simulator-delay"
            label="Delivery delay (ms)"
            placeholder="Platform default"
            error={providerErrors?.simulator?.deliveryDelayMs?.message}
            {...register('provider.simulator.deliveryDelayMs')}
          />
          <NumberField
            id="company-simulator-rate"
            label="Messages per second"
            placeholder="Platform default"
            error={providerErrors?.simulator?.messagesPerSecond?.message}
            {...register('provider.simulator.messagesPerSecond')}
          />
        </div>
      ) : null}

      {kind === 'africastalking' ? (
        <div className="grid gap-3 sm:grid-cols-2" data-testid="provider-africastalking">
          <FormField
            id="company-api-secret"
            label="API Username"
            required
            error={providerErrors?.africastalking?.username?.message}
            hint="Your Africa's Talking username ('sandbox' in the sandbox)."
          >
            <input
              id="company-api-secret"
              autoComplete="off"
              className={INPUT_CLASSES}
              {...register('provider.africastalking.username')}
            />
          </FormField>
          <FormField
            id="company-api-key"
            label="API Key"
            required={!company?.apiKey}
            error={providerErrors?.africastalking?.apiKey?.message}
            hint={secretHint(company?.apiKey, 'Stored encrypted; shown masked after saving.')}
          >
            <input
              id="company-api-key"
              type="password"
              autoComplete="new-password"
              className={INPUT_CLASSES}
              {...register('provider.africastalking.apiKey')}
            />
          </FormField>
          <FormField id="company-at-environment" label="Environment">
            <select
              id="company-at-environment"
              className={INPUT_CLASSES}
              {...register('provider.africastalking.environment')}
            >
              {AT_ENVIRONMENTS.map((value) => (
                <option key={value} value={value}>
                  {AT_ENVIRONMENT_LABELS[value]}
                </option>
              ))}
            </select>
          </FormField>
          {environment === 'custom' ? (
            <FormField
              id="company-at-base-url"
              label="Base URL"
              required
              error={providerErrors?.africastalking?.baseUrl?.message}
            >
              <input
                id="company-at-base-url"
                type="url"
                placeholder="https://api.africastalking.com"
                className={INPUT_CLASSES}
                {...register('provider.africastalking.baseUrl')}
              />
            </FormField>
          ) : (
            <div />
          )}
          <FormField
            id="company-at-sender"
            label="Sender ID / short code"
            error={providerErrors?.africastalking?.senderId?.message}
            hint={`Used when a service has no short code of its own. With letters, ${PROVIDER_LIMITS.alphanumericSenderLength} characters at most.`}
          >
            <input
              id="company-at-sender"
              className={INPUT_CLASSES}
              {...register('provider.africastalking.senderId')}
            />
          </FormField>
          <NumberField
            id="company-at-batch"
            label="Batch size"
            error={providerErrors?.africastalking?.batchSize?.message}
            {...register('provider.africastalking.batchSize')}
          />
          <NumberField
            id="company-at-rate"
            label="Messages per second"
            error={providerErrors?.africastalking?.messagesPerSecond?.message}
            {...register('provider.africastalking.messagesPerSecond')}
          />
        </div>
      ) : null}

      {kind === 'smpp' ? (
        <div className="grid gap-3 sm:grid-cols-2" data-testid="provider-smpp">
          <FormField id="company-smpp-host" label="Host" required error={providerErrors?.smpp?.host?.message}>
            <input
              id="company-smpp-host"
              placeholder="smsc.example.net"
              className={INPUT_CLASSES}
              {...register('provider.smpp.host')}
            />
          </FormField>
          <NumberField
            id="company-smpp-port"
            label="Port"
            error={providerErrors?.smpp?.port?.message}
            {...register('provider.smpp.port')}
          />
          <FormField
            id="company-smpp-system-id"
            label="System ID"
            required
            error={providerErrors?.smpp?.systemId?.message}
          >
            <input
              id="company-smpp-system-id"
              autoComplete="off"
              className={INPUT_CLASSES}
              {...register('provider.smpp.systemId')}
            />
          </FormField>
          <FormField
            id="company-smpp-password"
            label="Password"
            error={providerErrors?.smpp?.password?.message}
            hint={secretHint(
              current?.kind === 'smpp' ? current.password : null,
              `Stored encrypted; ${PROVIDER_LIMITS.smppPasswordLength} characters at most.`,
            )}
          >
            <input
              id="company-smpp-password"
              type="password"
              autoComplete="new-password"
              className={INPUT_CLASSES}
              {...register('provider.smpp.password')}
            />
          </FormField>
          <FormField id="company-smpp-bind-mode" label="Bind mode">
            <select
              id="company-smpp-bind-mode"
              className={INPUT_CLASSES}
              {...register('provider.smpp.bindMode')}
            >
              {SMPP_BIND_MODES.map((value) => (
                <option key={value} value={value}>
                  {SMPP_BIND_MODE_LABELS[value]}
                </option>
              ))}
            </select>
          </FormField>
          <FormField
            id="company-smpp-message-id-type"
            label="Message ID type"
            error={providerErrors?.smpp?.messageIdType?.message}
            hint="How the SMSC writes a message's id in its submit_sm response and in its receipt: hex or decimal."
          >
            <select
              id="company-smpp-message-id-type"
              className={INPUT_CLASSES}
              {...register('provider.smpp.messageIdType')}
            >
              {SMPP_MESSAGE_ID_TYPES.map((value) => (
                <option key={value} value={value}>
                  {SMPP_MESSAGE_ID_TYPE_LABELS[value]}
                </option>
              ))}
            </select>
          </FormField>
          <FormField
            id="company-smpp-system-type"
            label="System type"
            error={providerErrors?.smpp?.systemType?.message}
          >
            <input
              id="company-smpp-system-type"
              placeholder="Optional"
              className={INPUT_CLASSES}
              {...register('provider.smpp.systemType')}
            />
          </FormField>
          <NumberField
            id="company-smpp-rate"
            label="Messages per second"
            error={providerErrors?.smpp?.messagesPerSecond?.message}
            hint={SMPP_RATE_HINT}
            {...register('provider.smpp.messagesPerSecond')}
          />
          <NumberField
            id="company-smpp-window"
            label="Window (outstanding submits)"
            error={providerErrors?.smpp?.window?.message}
            hint={SMPP_WINDOW_HINT}
            {...register('provider.smpp.window')}
          />
          <NumberField
            id="company-smpp-source-ton"
            label="Source TON"
            placeholder="By sender"
            error={providerErrors?.smpp?.sourceTon?.message}
            hint={SOURCE_DEFAULTS_HINT}
            {...register('provider.smpp.sourceTon')}
          />
          <NumberField
            id="company-smpp-source-npi"
            label="Source NPI"
            placeholder="By sender"
            error={providerErrors?.smpp?.sourceNpi?.message}
            {...register('provider.smpp.sourceNpi')}
          />
        </div>
      ) : null}
    </fieldset>
  );
}

type TNumberFieldProps = ReturnType<UseFormRegister<TCompanyFormState>> & {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  step?: string;
  placeholder?: string;
};

function NumberField({ id, label, error, hint, step, placeholder, ...field }: TNumberFieldProps) {
  return (
    <FormField id={id} label={label} error={error} hint={hint}>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={step ?? '1'}
        placeholder={placeholder}
        className={INPUT_CLASSES}
        {...field}
      />
    </FormField>
  );
}
