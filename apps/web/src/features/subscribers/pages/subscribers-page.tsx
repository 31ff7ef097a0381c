import {
  SUBSCRIBER_DEFAULT_PAGE_SIZE,
  SUBSCRIBER_MESSAGES,
  SUBSCRIBER_PAGE_SIZES,
  SUBSCRIBER_STATUSES,
  type TSubscriber,
} from '@sms/contracts/subscribers/subscriber';
import { useMemo, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { TableEmpty, TableLoading, TableTryAgainError } from '../../../components/data-table-states.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import {
  FILTER_SELECT_CLASSES,
  SearchField,
  SearchFilterBar,
} from '../../../components/search-filter-bar.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { useCompanyOptions } from '../../../lib/company-options.ts';
import { formatDate } from '../../../lib/format-date.ts';
import { pageFrom, useUrlSearchText, useUrlState } from '../../../lib/use-url-state.ts';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { useExportSubscribers } from '../api/export-subscribers.ts';
import { useServiceOptions } from '../api/list-service-options.ts';
import { useSubscribers } from '../api/list-subscribers.ts';
import { ImportDialog } from '../components/import-dialog.tsx';
import { SubscriberFieldsDialog } from '../components/subscriber-fields-dialog.tsx';
import { SubscriberStatusBadge } from '../components/subscriber-status-badge.tsx';
import { SubscriptionDialog } from '../components/subscription-dialog.tsx';

const SEARCH_DELAY_MS = 300;

type TDialog =
  | { kind: 'subscribe' }
  | { kind: 'unsubscribe'; subscriber: TSubscriber }
  | { kind: 'import' }
  | { kind: 'fields'; subscriber: TSubscriber }
  | null;

// The top bar's search opens a subscriber as /subscribers?search=<number> (OPEN_PARAMS.subscriberSearch).
const URL_DEFAULTS = {
  search: '',
  status: '',
  company: '',
  limit: String(SUBSCRIBER_DEFAULT_PAGE_SIZE),
  page: '1',
};

function pageSizeFrom(value: string) {
  const size = Number(value);
  return (SUBSCRIBER_PAGE_SIZES as readonly number[]).includes(size) ? size : SUBSCRIBER_DEFAULT_PAGE_SIZE;
}

export default function SubscribersPage() {
  const { user } = useAuth();
  const withCompany = user?.role === 'system_admin';
  const { showToast } = useToast();
  // Filters, page size and page live in the address: a reload, a shared link or Back shows the same view.
  // A new search, filter or page size starts again at page 1: the page belongs to its filters.
  const [url, setUrl] = useUrlState(URL_DEFAULTS);
  const [searchInput, setSearchInput] = useUrlSearchText(
    url.search,
    (search) => setUrl({ search, page: '1' }, { replace: true }),
    SEARCH_DELAY_MS,
  );
  const search = url.search;
  const { status } = url;
  // system_admin only: '' is every company.
  const companyId = url.company;
  const limit = pageSizeFrom(url.limit);
  const page = pageFrom(url.page);
  const setPage = (next: number) => setUrl({ page: String(next) });
  const [dialog, setDialog] = useState<TDialog>(null);

  const filters = {
    status: status || undefined,
    search: search || undefined,
    companyId: withCompany && companyId ? Number(companyId) : undefined,
  };
  const subscribers = useSubscribers({ page, limit, ...filters });
  const companies = useCompanyOptions(withCompany);
  const services = useServiceOptions();
  const exportCsv = useExportSubscribers();
  const serviceList = services.data?.services ?? [];
  const serviceNames = useMemo(
    () => new Map(serviceList.map((service) => [service.id, service.name])),
    [serviceList],
  );

  const failed = subscribers.isError || services.isError;
  const retry = () => {
    if (subscribers.isError) subscribers.refetch();
    if (services.isError) services.refetch();
  };
  const data = subscribers.data;

  const download = async () => {
    try {
      await exportCsv.mutateAsync(filters);
    } catch (error) {
      showToast(getServerMessage(error) ?? 'Failed to export subscribers. Please try again.', 'error');
    }
  };

  return (
    <div className="space-y-6">
      <PageHeader
        title="Subscribers"
        description={
          withCompany
            ? 'Phone numbers subscribed to services across all companies.'
            : 'Phone numbers subscribed to your services.'
        }
        actions={
          <>
            <Button variant="secondary" onClick={download} disabled={exportCsv.isPending}>
              {exportCsv.isPending ? 'Exporting...' : 'Export CSV'}
            </Button>
            <Button
              variant="secondary"
              onClick={() => setDialog({ kind: 'import' })}
              disabled={serviceList.length === 0}
            >
              Import CSV
            </Button>
            <Button onClick={() => setDialog({ kind: 'subscribe' })} disabled={serviceList.length === 0}>
              Subscribe Number
            </Button>
          </>
        }
      />

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <SearchFilterBar>
          <SearchField
            look="flat"
            label="Search by phone number"
            placeholder="Search by phone number..."
            value={searchInput}
            onChange={setSearchInput}
            inputMode="tel"
          />
          {withCompany ? (
            <select
              aria-label="Filter by company"
              value={companyId}
              onChange={(event) => setUrl({ company: event.target.value, page: '1' })}
              className={FILTER_SELECT_CLASSES}
            >
              <option value="">All Companies</option>
              {(companies.data ?? []).map((company) => (
                <option key={company.id} value={company.id}>
                  {company.name}
                </option>
              ))}
            </select>
          ) : null}
          <select
            aria-label="Filter by status"
            value={status}
            onChange={(event) => setUrl({ status: event.target.value, page: '1' })}
            className={`${FILTER_SELECT_CLASSES} capitalize`}
          >
            <option value="">All Statuses</option>
            {SUBSCRIBER_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value[0].toUpperCase() + value.slice(1)}
              </option>
            ))}
          </select>
          <label className="flex items-center gap-2 text-sm text-slate-600">
            Per page
            <select
              aria-label="Subscribers per page"
              value={limit}
              onChange={(event) => setUrl({ limit: event.target.value, page: '1' })}
              className={FILTER_SELECT_CLASSES}
            >
              {SUBSCRIBER_PAGE_SIZES.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </select>
          </label>
        </SearchFilterBar>

        {failed ? (
          <TableTryAgainError
            title={SUBSCRIBER_MESSAGES.loadFailedTitle}
            message={SUBSCRIBER_MESSAGES.loadFailed}
            onRetry={retry}
          />
        ) : subscribers.isPending || !data ? (
          <TableLoading label="Loading subscribers" roomy />
        ) : data.subscribers.length === 0 ? (
          <TableEmpty roomy>{SUBSCRIBER_MESSAGES.empty}</TableEmpty>
        ) : (
          <>
            <div className={`overflow-x-auto ${subscribers.isFetching ? 'opacity-60' : ''}`}>
              <table
                className="stacked-table min-w-full divide-y divide-slate-200 text-sm"
                aria-label="Subscribers"
              >
                <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
                  <tr>
                    <th className="px-4 py-3">Phone number</th>
                    {withCompany ? <th className="px-4 py-3">Company</th> : null}
                    <th className="px-4 py-3">Status</th>
                    <th className="px-4 py-3">Active services</th>
                    <th className="px-4 py-3">Fields</th>
                    <th className="px-4 py-3">Joined</th>
                    <th className="px-4 py-3 text-right">Actions</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {data.subscribers.map((subscriber) => (
                    <tr key={subscriber.id} className="hover:bg-slate-50">
                      <td data-label="Phone number" className="px-4 py-3 font-mono text-slate-900">
                        {subscriber.msisdn}
                      </td>
                      {withCompany ? (
                        <td data-label="Company" className="px-4 py-3 text-slate-700">
                          {subscriber.company.name}
                        </td>
                      ) : null}
                      <td data-label="Status" className="px-4 py-3">
                        <SubscriberStatusBadge status={subscriber.status} />
                      </td>
                      <td data-label="Active services" className="px-4 py-3 text-slate-700">
                        {subscriber.active_services.length === 0 ? (
                          <span className="text-slate-400">None</span>
                        ) : (
                          <div className="flex flex-wrap gap-1">
                            {subscriber.active_services.map((id) => (
                              <span
                                key={id}
                                className="rounded-md bg-indigo-50 px-2 py-0.5 text-xs text-indigo-700"
                              >
                                {serviceNames.get(id) ?? `Service #${id}`}
                              </span>
                            ))}
                          </div>
                        )}
                      </td>
                      <td data-label="Fields" className="px-4 py-3 text-slate-700">
                        <SubscriberFields attributes={subscriber.attributes} />
                      </td>
                      <td data-label="Joined" className="px-4 py-3 text-slate-600">
                        {formatDate(subscriber.createdAt)}
                      </td>
                      <td data-label="" className="px-4 py-3 text-right whitespace-nowrap">
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Edit fields of ${subscriber.msisdn}`}
                          onClick={() => setDialog({ kind: 'fields', subscriber })}
                        >
                          Edit fields
                        </Button>
                        {subscriber.active_services.length > 0 ? (
                          <Button
                            variant="ghost"
                            size="sm"
                            aria-label={`Unsubscribe ${subscriber.msisdn}`}
                            onClick={() => setDialog({ kind: 'unsubscribe', subscriber })}
                          >
                            Unsubscribe
                          </Button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <PaginationBar
              currentPage={data.currentPage}
              totalPages={data.totalPages}
              totalItems={data.totalItems}
              onPageChange={setPage}
              itemLabel={data.totalIsExact ? 'subscribers' : 'or more subscribers'}
              itemLabelOne="subscriber"
            />
          </>
        )}
      </div>

      {dialog?.kind === 'subscribe' ? (
        <SubscriptionDialog
          mode="subscribe"
          services={serviceList}
          withCompany={withCompany}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog?.kind === 'unsubscribe' ? (
        <SubscriptionDialog
          mode="unsubscribe"
          services={serviceList.filter((service) => dialog.subscriber.active_services.includes(service.id))}
          withCompany={withCompany}
          phoneNumber={dialog.subscriber.msisdn}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog?.kind === 'fields' ? (
        <SubscriberFieldsDialog subscriber={dialog.subscriber} onClose={() => setDialog(null)} />
      ) : null}
      {dialog?.kind === 'import' ? (
        <ImportDialog services={serviceList} withCompany={withCompany} onClose={() => setDialog(null)} />
      ) : null}
    </div>
  );
}

/** A subscriber's merge fields as name: value chips; none reads as a dash. */
function SubscriberFields({ attributes }: { attributes: Record<string, string> }) {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return <span className="text-slate-400">—</span>;
  return (
    <div className="flex max-w-xs flex-wrap gap-1">
      {entries.map(([name, value]) => (
        <span
          key={name}
          className="rounded-md bg-slate-100 px-2 py-0.5 text-xs text-slate-700"
          title={`{{${name}}}`}
        >
          <span className="text-slate-500">{name}:</span> {value}
        </span>
      ))}
    </div>
  );
}
