import {
  AUDIT_ACTIONS,
  AUDIT_ENTITIES,
  AUDIT_LOG_LIMIT,
  type TAuditAction,
  type TAuditEntity,
} from '@sms/contracts/audit/audit-log';
import { AUDIT_MESSAGES } from '@sms/contracts/audit/list-audit-logs';
import { Button } from '../../../components/button.tsx';
import { TableEmpty, TableLoading } from '../../../components/data-table-states.tsx';
import { LockIcon } from '../../../components/icons.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { pageFrom, useUrlState } from '../../../lib/use-url-state.ts';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { useAuditLogs } from '../api/list-audit-logs.ts';
import { AuditLogTable } from '../components/audit-log-table.tsx';

const FIELD_CLASSES =
  'block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 focus:outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

const URL_DEFAULTS = { from: '', to: '', action: '', entity: '', page: '1' };

export default function AuditPage() {
  const { user } = useAuth();
  // Filters and page live in the address: a reload, a shared link or Back shows the same view.
  const [url, setUrl] = useUrlState(URL_DEFAULTS);
  const { from, to } = url;
  const action = (AUDIT_ACTIONS as readonly string[]).includes(url.action)
    ? (url.action as TAuditAction)
    : '';
  const entity = (AUDIT_ENTITIES as readonly string[]).includes(url.entity)
    ? (url.entity as TAuditEntity)
    : '';
  const page = pageFrom(url.page);
  const setPage = (next: number) => setUrl({ page: String(next) });
  const logs = useAuditLogs({ page, limit: AUDIT_LOG_LIMIT, from, to, action, entity });

  if (user?.role !== 'system_admin') {
    return (
      <div className="flex flex-col items-center gap-2 py-16 text-center">
        <LockIcon className="size-8 text-red-600" />
        <h1 className="text-xl font-semibold text-slate-900">Access Denied</h1>
        <p className="text-sm text-slate-600">You don't have permission to view audit logs.</p>
      </div>
    );
  }

  // Every filter change starts again at page 1.
  const filterChange = (name: 'from' | 'to' | 'action' | 'entity') => (value: string) =>
    setUrl({ [name]: value, page: '1' });
  const entries = logs.data?.auditLogs ?? [];

  return (
    <div className="space-y-6">
      <PageHeader
        title="Audit Log"
        description="Every change made through the platform: who did what, when and from where."
        actions={
          <Button variant="secondary" onClick={() => logs.refetch()} disabled={logs.isFetching}>
            {logs.isFetching ? 'Refreshing...' : 'Refresh'}
          </Button>
        }
      />
      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        <div className="grid gap-3 border-b border-slate-200 p-4 sm:grid-cols-2 lg:grid-cols-5">
          <label className="text-sm text-slate-700">
            From
            <input
              type="date"
              value={from}
              max={to || undefined}
              onChange={(e) => filterChange('from')(e.target.value)}
              className={`mt-1 ${FIELD_CLASSES}`}
            />
          </label>
          <label className="text-sm text-slate-700">
            To
            <input
              type="date"
              value={to}
              min={from || undefined}
              onChange={(e) => filterChange('to')(e.target.value)}
              className={`mt-1 ${FIELD_CLASSES}`}
            />
          </label>
          <label className="text-sm text-slate-700">
            Action
            <select
              value={action}
              onChange={(e) => filterChange('action')(e.target.value)}
              className={`mt-1 ${FIELD_CLASSES}`}
            >
              <option value="">All Actions</option>
              {AUDIT_ACTIONS.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
          <label className="text-sm text-slate-700">
            Entity
            <select
              value={entity}
              onChange={(e) => filterChange('entity')(e.target.value)}
              className={`mt-1 ${FIELD_CLASSES}`}
            >
              <option value="">All Entities</option>
              {AUDIT_ENTITIES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
          <div className="flex items-end">
            <Button
              variant="ghost"
              className="w-full"
              disabled={!from && !to && !action && !entity}
              onClick={() => setUrl({ ...URL_DEFAULTS })}
            >
              Clear filters
            </Button>
          </div>
        </div>
        {logs.isPending ? (
          <TableLoading label="Loading audit logs" />
        ) : logs.isError ? (
          <div role="alert" className="flex flex-col items-center gap-2 py-12 text-sm text-red-700">
            <p className="font-medium">{AUDIT_MESSAGES.loadFailed}</p>
            {getServerMessage(logs.error) ? <p>{getServerMessage(logs.error)}</p> : null}
            <Button variant="secondary" size="sm" onClick={() => logs.refetch()}>
              Retry
            </Button>
          </div>
        ) : entries.length === 0 ? (
          <TableEmpty>{AUDIT_MESSAGES.empty}</TableEmpty>
        ) : (
          <>
            <AuditLogTable entries={entries} />
            <PaginationBar
              currentPage={logs.data.currentPage}
              totalPages={logs.data.totalPages}
              totalItems={logs.data.totalItems}
              onPageChange={setPage}
              itemLabel="entries"
              itemLabelOne="entry"
            />
          </>
        )}
      </div>
    </div>
  );
}
