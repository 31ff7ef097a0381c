import { zodResolver } from '@hookform/resolvers/zod';
import { type TCreateUserFormInput, ZCreateUserForm, ZUpdateUserForm } from '@sms/contracts/admin/admin-user';
import { ROLES } from '@sms/contracts/auth/roles';
import { type TUser, USER_STATUSES } from '@sms/contracts/auth/user';
import { useForm, useWatch } from 'react-hook-form';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import { useCompanyOptions } from '../../../lib/company-options.ts';

export type TUserFormValues = {
  name: string;
  email: string;
  password?: string;
  role: (typeof ROLES)[number];
  companyId: number | null;
  status: (typeof USER_STATUSES)[number];
};

type TUserFormProps = {
  user?: TUser;
  onSubmit: (values: TUserFormValues) => Promise<unknown> | unknown;
  onCancel: () => void;
  isSubmitting: boolean;
  error: string | null;
};

const label = (text: string) => text.replaceAll('_', ' ').replace(/^./, (first) => first.toUpperCase());

/** The user form of spec section 5; one schema with the server (create or edit). */
export function UserForm({ user, onSubmit, onCancel, isSubmitting, error }: TUserFormProps) {
  const companies = useCompanyOptions();
  const {
    register,
    handleSubmit,
    control,
    formState: { errors },
  } = useForm<TCreateUserFormInput, unknown, TUserFormValues>({
    resolver: zodResolver(user ? ZUpdateUserForm : ZCreateUserForm) as never,
    defaultValues: {
      name: user?.name ?? '',
      email: user?.email ?? '',
      password: '',
      role: user?.role ?? 'viewer',
      companyId: user?.companyId ?? '',
      status: user?.status ?? 'active',
    },
  });
  const role = useWatch({ control, name: 'role' });
  const needsCompany = role !== 'system_admin';
  // A user's company may sit beyond the first 100: keep it selectable.
  const options = companies.data ?? [];
  if (user?.companyId && user.company && !options.some((option) => option.id === user.companyId))
    options.unshift({ id: user.companyId, name: user.company.name });

  return (
    <form onSubmit={handleSubmit((values) => onSubmit(values))} className="space-y-4" noValidate>
      {error ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
          {error}
        </div>
      ) : null}
      <FormField id="user-name" label="Name" required error={errors.name?.message}>
        <input id="user-name" className={INPUT_CLASSES} {...register('name')} />
      </FormField>
      <FormField id="user-email" label="Email" required error={errors.email?.message}>
        <input id="user-email" type="email" className={INPUT_CLASSES} {...register('email')} />
      </FormField>
      <FormField
        id="user-password"
        label="Password"
        required={!user}
        error={errors.password?.message}
        hint={user ? 'Leave blank to keep the current password.' : undefined}
      >
        <input
          id="user-password"
          type="password"
          autoComplete="new-password"
          className={INPUT_CLASSES}
          {...register('password')}
        />
      </FormField>
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField id="user-role" label="Role" error={errors.role?.message}>
          <select id="user-role" className={INPUT_CLASSES} {...register('role')}>
            {ROLES.map((value) => (
              <option key={value} value={value}>
                {label(value)}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id="user-status" label="Status" error={errors.status?.message}>
          <select id="user-status" className={INPUT_CLASSES} {...register('status')}>
            {USER_STATUSES.map((value) => (
              <option key={value} value={value}>
                {label(value)}
              </option>
            ))}
          </select>
        </FormField>
      </div>
      {needsCompany ? (
        <FormField id="user-company" label="Company" required error={errors.companyId?.message}>
          <select id="user-company" className={INPUT_CLASSES} {...register('companyId')}>
            <option value="">{companies.isPending ? 'Loading companies...' : 'Select a company'}</option>
            {options.map((company) => (
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
        submitLabel={user ? 'Update User' : 'Create User'}
      />
    </form>
  );
}
