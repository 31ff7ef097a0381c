import { zodResolver } from '@hookform/resolvers/zod';
import {
  BILLING_TYPE_LABELS,
  BILLING_TYPES,
  SERVICE_FORM_DEFAULTS,
  SERVICE_STATUS_LABELS,
  SERVICE_STATUSES,
  type TService,
  type TServiceFormInput,
  type TServiceFormValues,
  ZServiceForm,
  ZServiceFormForSystemAdmin,
} from '@sms/contracts/services/service';
import { useForm } from 'react-hook-form';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormError, FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';

type TServiceFormProps = {
  service?: TService;
  /** system_admin picks the company; for everyone else the field is absent and companyId is not sent. */
  companies?: { id: number; name: string }[];
  onSubmit: (values: TServiceFormValues) => Promise<unknown> | unknown;
  onCancel: () => void;
  isSubmitting: boolean;
  error: string | null;
};

/** The service form of spec section 5: create (no service) or edit. */
export function ServiceForm({
  service,
  companies,
  onSubmit,
  onCancel,
  isSubmitting,
  error,
}: TServiceFormProps) {
  const pickCompany = companies !== undefined;
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<TServiceFormInput, unknown, TServiceFormValues>({
    resolver: zodResolver(pickCompany ? ZServiceFormForSystemAdmin : ZServiceForm),
    defaultValues: service
      ? {
          name: service.name,
          shortcode: service.shortcode,
          keyword: service.keyword,
          description: service.description,
          billingType: service.billingType,
          status: service.status,
          companyId: pickCompany ? service.companyId : undefined,
        }
      : { ...SERVICE_FORM_DEFAULTS, companyId: undefined },
  });

  const submit = handleSubmit((values) => {
    const { companyId, ...rest } = values;
    return onSubmit(pickCompany ? { ...rest, companyId } : rest);
  });

  return (
    <form
      onSubmit={submit}
      className="space-y-4"
      noValidate
      aria-label={service ? 'Edit service' : 'Create service'}
    >
      <FormError error={error} />
      <FormField id="service-name" label="Service Name" required error={errors.name?.message}>
        <input id="service-name" className={INPUT_CLASSES} placeholder="Daily News" {...register('name')} />
      </FormField>
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField id="service-shortcode" label="Short Code" required error={errors.shortcode?.message}>
          <input
            id="service-shortcode"
            className={`${INPUT_CLASSES} uppercase`}
            placeholder="22550"
            autoComplete="off"
            {...register('shortcode', {
              onChange: (event) => {
                event.target.value = event.target.value.toUpperCase();
              },
            })}
          />
        </FormField>
        <FormField id="service-keyword" label="Keyword" required error={errors.keyword?.message}>
          <input
            id="service-keyword"
            className={INPUT_CLASSES}
            placeholder="NEWS"
            autoComplete="off"
            {...register('keyword')}
          />
        </FormField>
      </div>
      <FormField id="service-description" label="Description" error={errors.description?.message}>
        <textarea id="service-description" rows={3} className={INPUT_CLASSES} {...register('description')} />
      </FormField>
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField id="service-billing" label="Billing Type" error={errors.billingType?.message}>
          <select id="service-billing" className={INPUT_CLASSES} {...register('billingType')}>
            {BILLING_TYPES.map((type) => (
              <option key={type} value={type}>
                {BILLING_TYPE_LABELS[type]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id="service-status" label="Status" error={errors.status?.message}>
          <select id="service-status" className={INPUT_CLASSES} {...register('status')}>
            {SERVICE_STATUSES.map((status) => (
              <option key={status} value={status}>
                {SERVICE_STATUS_LABELS[status]}
              </option>
            ))}
          </select>
        </FormField>
      </div>
      {pickCompany ? (
        <FormField id="service-company" label="Company" required error={errors.companyId?.message}>
          <select
            id="service-company"
            className={INPUT_CLASSES}
            {...register('companyId', {
              setValueAs: (value) => (value === '' || value == null ? undefined : Number(value)),
            })}
          >
            <option value="">Select a company</option>
            {companies.map((company) => (
              <option key={company.id} value={company.id}>
                {company.name}
              </option>
            ))}
          </select>
        </FormField>
      ) : null}
      <FormActions
        onCancel={onCancel}
        isPending={isSubmitting}
        submitLabel={service ? 'Save Changes' : 'Create Service'}
      />
    </form>
  );
}
