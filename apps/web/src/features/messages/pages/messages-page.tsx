import { MESSAGE_CHIPS } from '@sms/contracts/messages/list-messages';
import { MESSAGE_MESSAGES, type TMessage } from '@sms/contracts/messages/message';
import { OPEN_PARAMS } from '@sms/contracts/search/global-search';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button, buttonStyles } from '../../../components/button.tsx';
import { TableEmpty, TableTryAgainError } from '../../../components/data-table-states.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useCompanyOptions } from '../../../lib/company-options.ts';
import { useSearchParamAction } from '../../../lib/use-search-param-action.ts';
import { pageFrom, useUrlSearchText, useUrlState } from '../../../lib/use-url-state.ts';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { useMessages } from '../api/list-messages.ts';
import { CreateMessageModal } from '../components/create-message-modal.tsx';
import { MessageDetailsModal } from '../components/message-details-modal.tsx';
import {
  ActiveFiltersBar,
  MessageChips,
  MessageFilterBar,
  NO_MESSAGE_FILTERS,
  type TMessageFilters,
} from '../components/message-filters.tsx';
import { MessagesTable } from '../components/messages-table.tsx';
import { describeMessagesError } from '../lib/message-errors.ts';

const SEARCH_DELAY_MS = 300;

const URL_DEFAULTS = {
  chip: NO_MESSAGE_FILTERS.chip,
  direction: '',
  status: '',
  search: '',
  company: '',
  page: '1',
};

function isChip(value: string): value is TMessageFilters['chip'] {
  return MESSAGE_CHIPS.some((chip) => chip.id === value);
}

export default function MessagesPage() {
  const { user } = useAuth();
  const isSystemAdmin = user?.role === 'system_admin';
  // Spec section 1: content managers view messaging only; the server refuses their sends alike.
  const canSend = user?.role === 'system_admin' || user?.role === 'company_admin';
  const companyName = user?.company?.name;
  // Filters and page live in the address: a reload, a shared link or Back shows the same view.
  const [url, setUrl] = useUrlState(URL_DEFAULTS);
  const [searchText, setSearchText] = useUrlSearchText(
    url.search,
    (search) => setUrl({ search, page: '1' }, { replace: true }),
    SEARCH_DELAY_MS,
  );
  const search = url.search;
  const filters: TMessageFilters = {
    chip: isChip(url.chip) ? url.chip : 'all',
    direction: url.direction as TMessageFilters['direction'],
    status: url.status as TMessageFilters['status'],
    search: searchText,
    companyId: url.company,
  };
  const setFilters = (next: TMessageFilters) => {
    if (next.search !== filters.search) setSearchText(next.search);
    const { chip, direction, status, companyId } = next;
    if (
      chip !== filters.chip ||
      direction !== filters.direction ||
      status !== filters.status ||
      companyId !== filters.companyId
    )
      setUrl({ chip, direction, status, company: companyId, page: '1' });
  };
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<Pick<TMessage, 'id'> | null>(null);
  // The top bar's search opens a message here: its details.
  useSearchParamAction(OPEN_PARAMS.messageOpen, (value) => {
    if (/^\d+$/.test(value)) setViewing({ id: Number(value) });
    return true;
  });
  const companies = useCompanyOptions(isSystemAdmin);

  // A new filter starts again at page 1 (setFilters resets it): the page belongs to its filters.
  const page = pageFrom(url.page);

  const messages = useMessages({
    page,
    chip: filters.chip,
    direction: filters.direction || undefined,
    status: filters.status || undefined,
    search: search || undefined,
    companyId: isSystemAdmin && filters.companyId ? Number(filters.companyId) : undefined,
  });
  const data = messages.data;

  const pickedCompany = companies.data?.find((company) => String(company.id) === filters.companyId);

  return (
    <div className="space-y-6">
      <PageHeader
        title="Message Logs"
        description={
          isSystemAdmin
            ? 'Review all inbound and outbound messages across all companies.'
            : `Review all inbound and outbound messages for ${companyName || 'your company'}.`
        }
        actions={
          isSystemAdmin ? null : (
            <span
              className="inline-flex items-center gap-2 rounded-full border border-indigo-200 bg-indigo-50 px-3 py-1 text-xs font-medium text-indigo-800"
              data-testid="company-scope-badge"
            >
              <span>{companyName || 'Your company'}</span>
              <span aria-hidden="true" className="text-indigo-300">
                |
              </span>
              <span>Company Scoped</span>
            </span>
          )
        }
      />

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <div className="flex flex-col gap-3 border-b border-slate-200 px-4 py-4 sm:flex-row sm:items-center sm:justify-between">
          <div>
            <h2 className="text-base font-semibold text-slate-900">Message History</h2>
            {canSend ? null : (
              <p className="mt-0.5 text-xs text-amber-700" id="create-message-note">
                {MESSAGE_MESSAGES.contentManagerSend}
              </p>
            )}
          </div>
          <div className="flex items-center gap-2">
            <Link to="/messages/templates" className={buttonStyles('secondary')}>
              Templates
            </Link>
            <Button
              onClick={() => setCreating(true)}
              disabled={!canSend}
              title={canSend ? undefined : MESSAGE_MESSAGES.contentManagerSend}
              aria-describedby={canSend ? undefined : 'create-message-note'}
            >
              Create Message
            </Button>
          </div>
        </div>

        <MessageChips
          value={filters.chip}
          counts={data?.counts}
          // A chip and a status are both status filters: picking one lets go of the other.
          onChange={(chip) => setFilters({ ...filters, chip, status: '' })}
        />
        <MessageFilterBar
          filters={filters}
          onChange={setFilters}
          companies={isSystemAdmin ? (companies.data ?? []) : undefined}
        />
        <ActiveFiltersBar
          filters={filters}
          companyName={pickedCompany?.name}
          onClear={() => {
            setSearchText('');
            setUrl({ ...URL_DEFAULTS });
          }}
        />

        {messages.isError && !data ? (
          <TableTryAgainError
            message={describeMessagesError(messages.error)}
            onRetry={() => messages.refetch()}
          />
        ) : messages.isPending || !data ? (
          <div className="flex items-center justify-center gap-3 py-16 text-sm text-slate-600">
            <Spinner className="size-6" label="Loading" />
            {MESSAGE_MESSAGES.loading}
          </div>
        ) : data.messages.length === 0 ? (
          <TableEmpty roomy>{MESSAGE_MESSAGES.empty}</TableEmpty>
        ) : (
          <>
            {messages.isError ? (
              <div
                role="alert"
                className="flex items-center justify-between gap-3 bg-red-50 px-4 py-2 text-sm text-red-700"
              >
                <span>{describeMessagesError(messages.error)}</span>
                <Button variant="secondary" size="sm" onClick={() => messages.refetch()}>
                  Try Again
                </Button>
              </div>
            ) : null}
            <div
              className={`overflow-x-auto ${messages.isFetching && messages.isPlaceholderData ? 'opacity-60' : ''}`}
            >
              <MessagesTable
                messages={data.messages}
                showCompany={isSystemAdmin}
                onViewDetails={setViewing}
              />
            </div>
            <PaginationBar
              currentPage={data.currentPage}
              totalPages={data.totalPages}
              totalItems={data.totalItems}
              onPageChange={(next) => setUrl({ page: String(next) })}
              itemLabel={data.totalIsExact ? 'messages' : 'or more messages'}
              itemLabelOne="message"
            />
          </>
        )}
      </div>

      {creating ? (
        <CreateMessageModal acrossCompanies={isSystemAdmin} onClose={() => setCreating(false)} />
      ) : null}
      {viewing ? (
        <MessageDetailsModal messageId={viewing.id} canCancel={canSend} onClose={() => setViewing(null)} />
      ) : null}
    </div>
  );
}
