import {
  COMPANY_LIMIT_FIELDS,
  COMPANY_LIMIT_LABELS,
  COMPANY_MESSAGES,
  type TCompanyForm,
} from '@sms/contracts/admin/company';
import { isPlan, PLAN_CATALOGUE } from '@sms/contracts/plans/plan-catalogue';
import { type Control, type FieldErrors, type UseFormRegister, useWatch } from 'react-hook-form';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import type { TCompanyFormState } from './company-form-state.ts';

type TProps = {
  register: UseFormRegister<TCompanyFormState>;
  control: Control<TCompanyFormState, unknown, TCompanyForm>;
  errors: FieldErrors<TCompanyFormState>;
};

const FIELD_IDS = {
  messagesLimit: 'company-messages-limit',
  subscribersLimit: 'company-subscribers-limit',
  servicesLimit: 'company-services-limit',
} as const;

/**
 * The company's own limits (a big sender's deal). Blank means the plan's, whose value the hint
 * names for the plan chosen above, so the admin sees what blank gives.
 */
export function CompanyLimitFields({ register, control, errors }: TProps) {
  const plan = useWatch({ control, name: 'plan' });
  const planLimits = PLAN_CATALOGUE[isPlan(plan) ? plan : 'basic'];
  return (
    <fieldset className="space-y-3 rounded-lg border border-slate-200 p-4">
      <legend className="px-1 text-sm font-medium text-slate-700">Limits</legend>
      <div className="grid gap-4 sm:grid-cols-3">
        {COMPANY_LIMIT_FIELDS.map((field) => (
          <FormField
            key={field}
            id={FIELD_IDS[field]}
            label={COMPANY_LIMIT_LABELS[field]}
            error={errors[field]?.message}
            hint={COMPANY_MESSAGES.limitHint(planLimits[field])}
          >
            <input
              id={FIELD_IDS[field]}
              type="number"
              inputMode="numeric"
              min={0}
              step="1"
              placeholder={planLimits[field].toLocaleString('en-US')}
              className={INPUT_CLASSES}
              {...register(field)}
            />
          </FormField>
        ))}
      </div>
    </fieldset>
  );
}
