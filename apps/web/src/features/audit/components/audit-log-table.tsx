import type { TAuditEntry } from '@sms/contracts/audit/audit-log';

const ACTION_STYLES: Record<string, string> = {
  CREATE: 'bg-green-50 text-green-700 ring-green-600/20',
  UPDATE: 'bg-sky-50 text-sky-700 ring-sky-600/20',
  DELETE: 'bg-red-50 text-red-700 ring-red-600/20',
  LOGIN: 'bg-slate-100 text-slate-700 ring-slate-500/20',
  LOGOUT: 'bg-slate-100 text-slate-700 ring-slate-500/20',
  APPROVE: 'bg-emerald-50 text-emerald-700 ring-emerald-600/20',
  REJECT: 'bg-orange-50 text-orange-700 ring-orange-600/20',
  SUSPEND: 'bg-amber-50 text-amber-800 ring-amber-600/20',
};

/** A short, readable line from an entry's details (name, e-mail, status changes...). */
function summarise(details: Record<string, unknown>) {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'object') continue;
    parts.push(`${key}: ${String(value)}`);
    if (parts.length === 4) break;
  }
  return parts.join(' · ');
}

export function AuditLogTable({ entries }: { entries: TAuditEntry[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <thead className="bg-slate-50 text-left text-xs font-medium tracking-wide text-slate-500 uppercase">
          <tr>
            <th className="px-4 py-3">Timestamp</th>
            <th className="px-4 py-3">User</th>
            <th className="px-4 py-3">Action</th>
            <th className="px-4 py-3">Entity</th>
            <th className="px-4 py-3">Details</th>
            <th className="px-4 py-3">IP Address</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {entries.map((entry) => (
            <tr key={entry.id} data-testid="audit-row" className="align-top hover:bg-slate-50">
              <td className="px-4 py-3 whitespace-nowrap text-slate-700">
                {new Date(entry.timestamp).toLocaleString()}
              </td>
              <td className="px-4 py-3">
                <p className="font-medium text-slate-900">{entry.userName ?? 'System'}</p>
                {entry.userEmail ? <p className="text-xs text-slate-500">{entry.userEmail}</p> : null}
              </td>
              <td className="px-4 py-3">
                <span
                  className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${ACTION_STYLES[entry.action] ?? 'bg-indigo-50 text-indigo-700 ring-indigo-600/20'}`}
                >
                  {entry.action}
                </span>
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-slate-700">
                {entry.entity}
                {entry.entityId ? <span className="text-slate-500"> #{entry.entityId}</span> : null}
              </td>
              <td
                className="max-w-md px-4 py-3 text-xs break-words text-slate-600"
                title={JSON.stringify(entry.details)}
              >
                {summarise(entry.details)}
              </td>
              <td
                className="px-4 py-3 whitespace-nowrap text-xs text-slate-500"
                title={entry.userAgent ?? undefined}
              >
                {entry.ipAddress ?? '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
