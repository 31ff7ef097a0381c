import {
  type COMPANY_FILTER_STATUSES,
  COMPANY_LIMIT_FIELDS,
  COMPANY_LIMIT_LABELS,
  COMPANY_MESSAGES,
  type TCompany,
  type TCompanyForm,
} from '@sms/contracts/admin/company';
import { OPEN_PARAMS } from '@sms/contracts/search/global-search';
import { type ComponentProps, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { TableEmpty, TableLoading, TableRetryError } from '../../../components/data-table-states.tsx';
import { INPUT_CLASSES } from '../../../components/form-field.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { SearchField, SearchFilterBar } from '../../../components/search-filter-bar.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { ApiError, getServerMessage } from '../../../lib/api-client.ts';
import { formatDate, formatDateTime } from '../../../lib/format-date.ts';
import { useSearchParamAction } from '../../../lib/use-search-param-action.ts';
import { CallbackUrlsModal } from '../../callbacks/components/callback-urls-modal.tsx';
import { useActivateCompany } from '../api/activate-company.ts';
import { useCreateCompany } from '../api/create-company.ts';
import { useDeleteCompany } from '../api/delete-company.ts';
import { useCompanies } from '../api/list-companies.ts';
import { useSuspendCompany } from '../api/suspend-company.ts';
import { useUpdateCompany } from '../api/update-company.ts';
import { usePagedSearch } from '../hooks/use-paged-search.ts';
import { PlanBadge, StatusBadge } from './badges.tsx';
import { CompanyForm } from './company-form.tsx';
import { companySaveError } from './company-save-error.ts';
import { StatCard } from './stat-card.tsx';

type TStatusFilter = (typeof COMPANY_FILTER_STATUSES)[number] | '';

type TPending =
  | { kind: 'form'; company?: TCompany }
  | { kind: 'suspend'; company: TCompany }
  | { kind: 'delete'; company: TCompany }
  | { kind: 'delete-cascade'; company: TCompany; message: string }
  | { kind: 'callbacks'; company: TCompany }
  | null;

const formatLastActive = (iso: string | null) => formatDate(iso) ?? 'Never';

export function CompaniesTab() {
  const { showToast } = useToast();
  const table = usePagedSearch<TStatusFilter>('status', '');
  const companies = useCompanies({ page: table.page, searchTerm: table.searchTerm, status: table.filter });
  const [pending, setPending] = useState<TPending>(null);
  const create = useCreateCompany();
  const update = useUpdateCompany();
  const activate = useActivateCompany();
  const suspend = useSuspendCompany();
  const remove = useDeleteCompany();
  const save = pending?.kind === 'form' && pending.company ? update : create;

  function closeForm() {
    create.reset();
    update.reset();
    setPending(null);
  }

  function onSave(values: TCompanyForm) {
    if (pending?.kind !== 'form') return;
    const done = (message: string) => () => {
      showToast(message, 'success');
      closeForm();
    };
    if (pending.company)
      update.mutate(
        { id: pending.company.id, body: values },
        { onSuccess: done('Company updated successfully!') },
      );
    else create.mutate(values, { onSuccess: done('Company created successfully!') });
  }

  function onActivate(company: TCompany) {
    activate.mutate(company.id, {
      onSuccess: () => showToast(`${company.name} activated`, 'success'),
      onError: (error) => showToast(getServerMessage(error) ?? 'Failed to activate company', 'error'),
    });
  }

  function onSuspendConfirmed(company: TCompany) {
    suspend.mutate(company.id, {
      onSuccess: () => showToast(`${company.name} suspended`, 'success'),
      onError: (error) => showToast(getServerMessage(error) ?? 'Failed to suspend company', 'error'),
      onSettled: () => setPending(null),
    });
  }

  function onDeleteConfirmed(company: TCompany, cascade: boolean) {
    remove.mutate(
      { id: company.id, cascade },
      {
        onSuccess: () => {
          showToast('Company deleted successfully!', 'success');
          setPending(null);
        },
        onError: (error) => {
          // The company still holds data: say what, and ask once more before deleting it all.
          if (!cascade && error instanceof ApiError && error.status === 409) {
            setPending({ kind: 'delete-cascade', company, message: error.message });
            return;
          }
          showToast(getServerMessage(error) ?? 'Failed to delete company', 'error');
          setPending(null);
        },
      },
    );
  }

  const stats = companies.data?.stats;
  const rows = companies.data?.companies ?? [];
  // The top bar's search opens a company here: the table narrowed to it (search=), its form open.
  useSearchParamAction(OPEN_PARAMS.adminEdit, (value) => {
    if (!companies.data) return companies.isError;
    const found = rows.find((row) => row.id === Number(value));
    if (found) setPending({ kind: 'form', company: found });
    return true;
  });

  return (
    <div className="space-y-6">
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label="Total Companies" value={stats?.totalCompanies} tone="indigo" />
        <StatCard label="Active Companies" value={stats?.activeCompanies} tone="green" />
        <StatCard label="Pending Approvals" value={stats?.pendingCompanies} tone="amber" />
        <StatCard label="Total Users" value={stats?.totalUsers} tone="slate" />
      </div>

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <SearchFilterBar>
          <SearchField
            look="form"
            label="Search companies"
            placeholder="Search companies..."
            value={table.search}
            onChange={table.setSearch}
          />
          <select
            aria-label="Filter by status"
            value={table.filter}
            onChange={(event) => table.setFilter(event.target.value as TStatusFilter)}
            className={`${INPUT_CLASSES} sm:w-44`}
          >
            <option value="">All Status</option>
            <option value="active">Active</option>
            <option value="suspended">Suspended</option>
            <option value="pending">Pending</option>
          </select>
          <Button onClick={() => setPending({ kind: 'form' })}>Add Company</Button>
        </SearchFilterBar>

        {companies.isPending ? (
          <TableLoading label="Loading companies" />
        ) : companies.isError ? (
          <TableRetryError message={COMPANY_MESSAGES.loadFailed} onRetry={() => companies.refetch()} />
        ) : rows.length === 0 ? (
          <TableEmpty>{COMPANY_MESSAGES.empty}</TableEmpty>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full divide-y divide-slate-200 text-sm">
              <thead className="bg-slate-50 text-left text-xs font-medium tracking-wide text-slate-500 uppercase">
                <tr>
                  <th className="px-2.5 py-3">Company</th>
                  <th className="px-2.5 py-3">Plan</th>
                  <th className="px-2.5 py-3">Status</th>
                  <th className="px-2.5 py-3 text-right">Users</th>
                  <th className="px-2.5 py-3 text-right">Services</th>
                  <th className="px-2.5 py-3 text-right">Subscribers</th>
                  <th className="px-2.5 py-3">Last Active</th>
                  <th className="px-2.5 py-3 text-right">Actions</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {rows.map((company) => (
                  <tr key={company.id} data-testid="company-row" className="hover:bg-slate-50">
                    <td className="px-2.5 py-3">
                      <p className="font-medium text-slate-900">{company.name}</p>
                      <p className="text-xs text-slate-500">{company.email}</p>
                    </td>
                    <td className="px-2.5 py-3">
                      <PlanBadge plan={company.plan} />
                      <OwnLimitsNote company={company} />
                    </td>
                    <td className="px-2.5 py-3">
                      <StatusBadge status={company.status} />
                      {company.providerFailure ? (
                        <p
                          className="mt-1 max-w-56 text-xs text-red-700"
                          data-testid="provider-failing"
                          title={company.providerFailure.reason}
                        >
                          Provider failing since {formatDateTime(company.providerFailure.since)}:{' '}
                          {company.providerFailure.reason}
                        </p>
                      ) : null}
                    </td>
                    <td className="px-2.5 py-3 text-right tabular-nums">
                      {company.userCount.toLocaleString()}
                    </td>
                    <td className="px-2.5 py-3 text-right tabular-nums">
                      {company.serviceCount.toLocaleString()}
                    </td>
                    <td className="px-2.5 py-3 text-right tabular-nums">
                      {company.subscriberCount.toLocaleString()}
                    </td>
                    <td className="px-2.5 py-3 whitespace-nowrap text-slate-600">
                      {formatLastActive(company.lastActive)}
                    </td>
                    <td className="px-2.5 py-3">
                      <div className="ml-auto flex w-36 flex-wrap justify-end gap-x-0.5 gap-y-1">
                        <RowAction
                          onClick={() => setPending({ kind: 'form', company })}
                          aria-label={`Edit ${company.name}`}
                        >
                          Edit
                        </RowAction>
                        <RowAction
                          onClick={() => setPending({ kind: 'callbacks', company })}
                          aria-label={`Callback URLs of ${company.name}`}
                        >
                          Webhooks
                        </RowAction>
                        {company.status === 'pending' ? (
                          <RowAction
                            className="text-green-700"
                            disabled={activate.isPending}
                            onClick={() => onActivate(company)}
                            aria-label={`Activate ${company.name}`}
                          >
                            Activate
                          </RowAction>
                        ) : null}
                        {company.status === 'active' ? (
                          <RowAction
                            className="text-amber-700"
                            onClick={() => setPending({ kind: 'suspend', company })}
                            aria-label={`Suspend ${company.name}`}
                          >
                            Suspend
                          </RowAction>
                        ) : null}
                        <RowAction
                          className="text-red-700"
                          onClick={() => setPending({ kind: 'delete', company })}
                          aria-label={`Delete ${company.name}`}
                        >
                          Delete
                        </RowAction>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {companies.data && rows.length > 0 ? (
          <PaginationBar
            currentPage={companies.data.pagination.currentPage}
            totalPages={companies.data.pagination.totalPages}
            totalItems={companies.data.pagination.totalItems}
            onPageChange={table.setPage}
            itemLabel="companies"
            itemLabelOne="company"
          />
        ) : null}
      </div>

      {pending?.kind === 'form' ? (
        <ModalDialog
          title={pending.company ? 'Edit Company' : 'Add Company'}
          onClose={closeForm}
          widthClass="max-w-2xl"
        >
          <CompanyForm
            company={pending.company}
            onSubmit={onSave}
            onCancel={closeForm}
            isSubmitting={save.isPending}
            error={companySaveError(save.error)}
            onDismissError={() => save.reset()}
          />
        </ModalDialog>
      ) : null}
      {pending?.kind === 'suspend' ? (
        <ConfirmDialog
          title="Suspend company"
          message={COMPANY_MESSAGES.confirmSuspend}
          confirmLabel="Suspend"
          isPending={suspend.isPending}
          onConfirm={() => onSuspendConfirmed(pending.company)}
          onCancel={() => setPending(null)}
        />
      ) : null}
      {pending?.kind === 'delete' ? (
        <ConfirmDialog
          title="Delete company"
          message={COMPANY_MESSAGES.confirmDelete}
          confirmLabel="Delete"
          isPending={remove.isPending}
          onConfirm={() => onDeleteConfirmed(pending.company, false)}
          onCancel={() => setPending(null)}
        />
      ) : null}
      {pending?.kind === 'delete-cascade' ? (
        <ConfirmDialog
          title="Delete company and all its data"
          message={`${pending.message} Delete ${pending.company.name} and everything it holds?`}
          confirmLabel="Delete everything"
          isPending={remove.isPending}
          onConfirm={() => onDeleteConfirmed(pending.company, true)}
          onCancel={() => setPending(null)}
        />
      ) : null}
      {pending?.kind === 'callbacks' ? (
        <CallbackUrlsModal
          scope={{ kind: 'company', companyId: pending.company.id }}
          companyName={pending.company.name}
          onClose={() => setPending(null)}
        />
      ) : null}
    </div>
  );
}

function RowAction({ className = 'text-slate-700', ...props }: ComponentProps<typeof Button>) {
  return <Button variant="ghost" size="sm" className={`px-1.5 py-1 text-xs ${className}`} {...props} />;
}

/** A company on limits of its own (a deal) says so under its plan: the limits in force. */
function OwnLimitsNote({ company }: { company: TCompany }) {
  const own = COMPANY_LIMIT_FIELDS.filter((field) => company.ownLimits[field] !== null);
  if (own.length === 0) return null;
  return (
    <p className="mt-1 max-w-56 text-xs text-slate-600" data-testid="own-limits">
      Own limits:{' '}
      {own
        .map((field) => `${COMPANY_LIMIT_LABELS[field]} ${company.limits[field].toLocaleString('en-US')}`)
        .join(' · ')}
    </p>
  );
}
