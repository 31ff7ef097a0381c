import { OPEN_PARAMS } from '@sms/contracts/search/global-search';
import {
  BILLING_TYPE_LABELS,
  SERVICE_MESSAGES,
  SERVICE_STATUS_LABELS,
  SERVICE_STATUSES,
  type TService,
  type TServiceFormValues,
} from '@sms/contracts/services/service';
import { useMemo, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { TableEmpty, TableLoading, TableTryAgainError } from '../../../components/data-table-states.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import {
  FILTER_SELECT_CLASSES,
  SearchField,
  SearchFilterBar,
} from '../../../components/search-filter-bar.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { useCompanyOptions } from '../../../lib/company-options.ts';
import { formatDate } from '../../../lib/format-date.ts';
import { countOf } from '../../../lib/plural.ts';
import { useSearchParamAction } from '../../../lib/use-search-param-action.ts';
import { useUrlSearchText, useUrlState } from '../../../lib/use-url-state.ts';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { useCreateService } from '../api/create-service.ts';
import { useDeleteService } from '../api/delete-service.ts';
import { useServices } from '../api/list-services.ts';
import { useUpdateService } from '../api/update-service.ts';
import { ServiceForm } from '../components/service-form.tsx';
import { ServiceStatusBadge } from '../components/service-status-badge.tsx';

type TEditing = { mode: 'create' } | { mode: 'edit'; service: TService } | null;

const formatLastActivity = (iso: string | null) => formatDate(iso) ?? '—';

const SEARCH_DELAY_MS = 250;
const URL_DEFAULTS = { search: '', status: '' };

export default function ServicesPage() {
  const { user } = useAuth();
  const isSystemAdmin = user?.role === 'system_admin';
  const readOnly = user?.role === 'content_manager';
  const { showToast } = useToast();
  const services = useServices();
  const companies = useCompanyOptions(isSystemAdmin);
  const createService = useCreateService();
  const updateService = useUpdateService();
  const deleteService = useDeleteService();
  const [editing, setEditing] = useState<TEditing>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<TService | null>(null);
  // Search and status live in the address: a reload, a shared link or Back shows the same view.
  const [url, setUrl] = useUrlState(URL_DEFAULTS);
  const [search, setSearch] = useUrlSearchText(
    url.search,
    (text) => setUrl({ search: text }, { replace: true }),
    SEARCH_DELAY_MS,
  );
  const { status } = url;
  const setStatus = (value: string) => setUrl({ status: value });

  const all = services.data?.services ?? [];
  const visible = useMemo(() => {
    const term = search.trim().toLowerCase();
    return all.filter(
      (service) =>
        (!status || service.status === status) &&
        (!term ||
          [service.name, service.shortcode, service.keyword, service.company.name].some((text) =>
            text.toLowerCase().includes(term),
          )),
    );
  }, [all, search, status]);

  // The top bar's search opens a service here: its form, or for a content manager (view only) its row.
  useSearchParamAction(OPEN_PARAMS.serviceEdit, (value) => {
    if (!services.data) return services.isError;
    const service = all.find((candidate) => candidate.id === Number(value));
    if (service && readOnly) setSearch(service.name);
    else if (service) setEditing({ mode: 'edit', service });
    return true;
  });

  const closeForm = () => {
    setEditing(null);
    setFormError(null);
  };

  const save = async (values: TServiceFormValues) => {
    setFormError(null);
    const creating = editing?.mode === 'create';
    try {
      if (editing?.mode === 'edit') await updateService.mutateAsync({ id: editing.service.id, body: values });
      else await createService.mutateAsync(values);
      showToast(creating ? SERVICE_MESSAGES.created : SERVICE_MESSAGES.updated, 'success');
      closeForm();
    } catch (error) {
      const fallback = creating ? SERVICE_MESSAGES.createFailed : SERVICE_MESSAGES.updateFailed;
      showToast(fallback, 'error');
      const reason = getServerMessage(error);
      setFormError(reason ? `${fallback}: ${reason}` : fallback);
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await deleteService.mutateAsync(deleting.id);
      showToast(SERVICE_MESSAGES.deleted, 'success');
    } catch {
      showToast(SERVICE_MESSAGES.deleteFailed, 'error');
    } finally {
      setDeleting(null);
    }
  };

  return (
    <div className="space-y-6">
      <PageHeader
        title="Services"
        description={
          readOnly
            ? 'View the short codes and keywords your subscribers join.'
            : 'Manage the short codes and keywords your subscribers join.'
        }
        actions={
          readOnly ? (
            <span className="inline-flex items-center gap-1 rounded-full bg-amber-50 px-3 py-1 text-xs font-medium text-amber-800 ring-1 ring-inset ring-amber-600/20">
              View only
            </span>
          ) : (
            <Button onClick={() => setEditing({ mode: 'create' })}>Add Service</Button>
          )
        }
      />

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <SearchFilterBar>
          <SearchField
            look="flat"
            label="Search services"
            placeholder="Search by name, short code or keyword..."
            value={search}
            onChange={setSearch}
          />
          <select
            aria-label="Filter by status"
            value={status}
            onChange={(event) => setStatus(event.target.value)}
            className={FILTER_SELECT_CLASSES}
          >
            <option value="">All Status</option>
            {SERVICE_STATUSES.map((value) => (
              <option key={value} value={value}>
                {SERVICE_STATUS_LABELS[value]}
              </option>
            ))}
          </select>
        </SearchFilterBar>

        {services.isPending ? (
          <TableLoading label="Loading services" roomy />
        ) : services.isError ? (
          <TableTryAgainError message={SERVICE_MESSAGES.loadFailed} onRetry={() => services.refetch()} />
        ) : all.length === 0 ? (
          <div className="py-16 text-center">
            <p className="text-sm font-medium text-slate-900">{SERVICE_MESSAGES.emptyAll}</p>
            {readOnly ? null : (
              <p className="mt-1 text-sm text-slate-500">Add a service to start collecting subscribers.</p>
            )}
          </div>
        ) : visible.length === 0 ? (
          <TableEmpty roomy>{SERVICE_MESSAGES.emptyFiltered}</TableEmpty>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full divide-y divide-slate-200 text-sm">
              <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
                <tr>
                  <th className="px-3 py-3">Service</th>
                  <th className="px-3 py-3 whitespace-nowrap">Code / Billing</th>
                  {isSystemAdmin ? <th className="px-3 py-3">Company</th> : null}
                  <th className="px-3 py-3">Status</th>
                  <th className="px-3 py-3 text-right">Subscribers</th>
                  <th className="px-3 py-3 text-right">Messages</th>
                  <th className="px-3 py-3 whitespace-nowrap">Last activity</th>
                  {readOnly ? null : (
                    <th className="sticky right-0 bg-slate-50 px-3 py-3 text-right">Actions</th>
                  )}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {visible.map((service) => (
                  <tr key={service.id} className="hover:bg-slate-50">
                    <td className="px-3 py-3">
                      <p className="font-medium text-slate-900">{service.name}</p>
                      {service.description ? (
                        <p className="max-w-52 truncate text-xs text-slate-500">{service.description}</p>
                      ) : null}
                    </td>
                    <td className="px-3 py-3 whitespace-nowrap">
                      <p className="font-mono text-xs text-slate-700">
                        {service.shortcode} · {service.keyword}
                      </p>
                      <p className="text-xs text-slate-500">{BILLING_TYPE_LABELS[service.billingType]}</p>
                    </td>
                    {isSystemAdmin ? (
                      <td className="px-3 py-3 text-slate-700">{service.company.name}</td>
                    ) : null}
                    <td className="px-3 py-3">
                      <ServiceStatusBadge status={service.status} />
                    </td>
                    <td className="px-3 py-3 text-right tabular-nums">
                      {service.subscriber_count.toLocaleString()}
                    </td>
                    <td className="px-3 py-3 text-right tabular-nums">
                      {service.messageCount.toLocaleString()}
                    </td>
                    <td className="px-3 py-3 whitespace-nowrap text-slate-600">
                      {formatLastActivity(service.lastActivity)}
                    </td>
                    {readOnly ? null : (
                      <td className="sticky right-0 bg-white px-3 py-3 text-right whitespace-nowrap">
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Edit ${service.name}`}
                          onClick={() => setEditing({ mode: 'edit', service })}
                        >
                          Edit
                        </Button>
                        <Button
                          variant="ghost"
                          size="sm"
                          className="text-red-600 hover:text-red-700"
                          aria-label={`Delete ${service.name}`}
                          onClick={() => setDeleting(service)}
                        >
                          Delete
                        </Button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>

      {editing ? (
        <ModalDialog title={editing.mode === 'edit' ? 'Edit Service' : 'Create Service'} onClose={closeForm}>
          <ServiceForm
            service={editing.mode === 'edit' ? editing.service : undefined}
            companies={isSystemAdmin ? (companies.data ?? []) : undefined}
            onSubmit={save}
            onCancel={closeForm}
            isSubmitting={createService.isPending || updateService.isPending}
            error={formError}
          />
        </ModalDialog>
      ) : null}

      {deleting ? (
        <ConfirmDialog
          title="Delete Service"
          message={
            deleting.subscriber_count > 0 || deleting.messageCount > 0
              ? `Delete ${deleting.name}? Its ${countOf(deleting.subscriber_count, 'active subscription', 'active subscriptions')} end, and its ${countOf(deleting.messageCount, 'message', 'messages')} stay in the history without a service. This cannot be undone.`
              : `Delete ${deleting.name}? This cannot be undone.`
          }
          confirmLabel="Delete"
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
          isPending={deleteService.isPending}
        />
      ) : null}
    </div>
  );
}
