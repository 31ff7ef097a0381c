import {
  COMPANY_FORM_PLANS,
  COMPANY_STATUSES,
  type TCompany,
  type TCompanyForm,
} from '@sms/contracts/admin/company';
import { useForm, useWatch } from 'react-hook-form';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import { XCircleIcon } from '../../../components/icons.tsx';
import { companyFormResolver, initialFormState, type TCompanyFormState } from './company-form-state.ts';
import { CompanyLimitFields } from './company-limit-fields.tsx';
import { CompanyProviderFields } from './company-provider-fields.tsx';

type TCompanyFormProps = {
  company?: TCompany;
  onSubmit: (values: TCompanyForm) => Promise<unknown> | unknown;
  onCancel: () => void;
  isSubmitting: boolean;
  error: string | null;
  onDismissError: () => void;
};

/** The company form of spec section 5: create (no company) or edit. */
export function CompanyForm({
  company,
  onSubmit,
  onCancel,
  isSubmitting,
  error,
  onDismissError,
}: TCompanyFormProps) {
  const {
    register,
    handleSubmit,
    control,
    formState: { errors },
  } = useForm<TCompanyFormState, unknown, TCompanyForm>({
    resolver: companyFormResolver,
    defaultValues: initialFormState(company),
  });
  const [name, email, phoneNumber, address] = useWatch({
    control,
    name: ['name', 'email', 'phoneNumber', 'address'],
  });
  const allRequiredFilled = [name, email, phoneNumber, address].every((value) => (value ?? '').trim() !== '');
  const plans: readonly string[] =
    company?.plan && !(COMPANY_FORM_PLANS as readonly string[]).includes(company.plan)
      ? [...COMPANY_FORM_PLANS, company.plan]
      : COMPANY_FORM_PLANS;

  return (
    <form onSubmit={handleSubmit((values) => onSubmit(values))} className="space-y-4" noValidate>
      {error ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
          <div className="flex items-start gap-2">
            <XCircleIcon className="mt-0.5 size-4 shrink-0" />
            <div className="flex-1">
              <p className="font-medium">Error saving company</p>
              <p className="mt-0.5">{error}</p>
            </div>
            <button type="button" onClick={onDismissError} className="text-xs font-medium underline">
              Dismiss
            </button>
          </div>
        </div>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField id="company-name" label="Company Name" required error={errors.name?.message}>
          <input id="company-name" className={INPUT_CLASSES} {...register('name')} />
        </FormField>
        <FormField id="company-email" label="Email" required error={errors.email?.message}>
          <input id="company-email" type="email" className={INPUT_CLASSES} {...register('email')} />
        </FormField>
        <FormField id="company-phone" label="Phone Number" required error={errors.phoneNumber?.message}>
          <input id="company-phone" type="tel" className={INPUT_CLASSES} {...register('phoneNumber')} />
        </FormField>
        <FormField id="company-plan" label="Plan" error={errors.plan?.message}>
          <select id="company-plan" className={`${INPUT_CLASSES} capitalize`} {...register('plan')}>
            {plans.map((plan) => (
              <option key={plan} value={plan}>
                {plan.charAt(0).toUpperCase() + plan.slice(1)}
              </option>
            ))}
          </select>
        </FormField>
      </div>
      <FormField id="company-address" label="Address" required error={errors.address?.message}>
        <textarea id="company-address" rows={2} className={INPUT_CLASSES} {...register('address')} />
      </FormField>
      <FormField id="company-status" label="Status" error={errors.status?.message}>
        <select id="company-status" className={INPUT_CLASSES} {...register('status')}>
          {COMPANY_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status.charAt(0).toUpperCase() + status.slice(1)}
            </option>
          ))}
        </select>
      </FormField>
      <CompanyLimitFields register={register} control={control} errors={errors} />
      <CompanyProviderFields company={company} register={register} control={control} errors={errors} />
      <FormActions
        onCancel={onCancel}
        isPending={isSubmitting}
        submitLabel={company ? 'Update Company' : 'Create Company'}
        submitDisabled={!allRequiredFilled}
      />
    </form>
  );
}
