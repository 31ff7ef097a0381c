import { PLAN_LIMIT_MESSAGES } from '@sms/contracts/plans/plan-catalogue';
import type { TService } from '@sms/contracts/services/service';
import { IMPORT_MESSAGES, type TImportSubscribersData } from '@sms/contracts/subscribers/import-subscribers';
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { FormActions } from '../../../components/form-actions.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { countOf } from '../../../lib/plural.ts';
import { useImportSubscribers } from '../api/import-subscribers.ts';
import { fileBytesSent, lineEnds, linesWithin } from '../lib/import-progress.ts';
import { ServiceSelect } from './service-select.tsx';

type TImportDialogProps = { services: TService[]; withCompany: boolean; onClose: () => void };

/** CSV import into one service, then its report: counts and every refused line. */
export function ImportDialog({ services, withCompany, onClose }: TImportDialogProps) {
  const { showToast } = useToast();
  const importSubscribers = useImportSubscribers();
  const [serviceId, setServiceId] = useState(services.length === 1 ? String(services[0].id) : '');
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<TImportSubscribersData | null>(null);
  // Rows the server has been given so far (it reads the upload as it arrives), of the file's lines.
  const [progress, setProgress] = useState<{ read: number; total: number } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!serviceId) return setError('Please select a service');
    if (!file) return setError(IMPORT_MESSAGES.fileRequired);
    setError(null);
    try {
      const ends = await lineEnds(file);
      setProgress({ read: 0, total: ends.length });
      const result = await importSubscribers.mutateAsync({
        serviceId: Number(serviceId),
        file,
        onUploadProgress: (loaded, total) =>
          setProgress({
            read: linesWithin(ends, fileBytesSent(loaded, total, file.size)),
            total: ends.length,
          }),
      });
      setReport(result);
      showToast(
        `Imported ${countOf(result.imported, 'subscriber', 'subscribers')}`,
        result.refusedByLimit > 0 ? 'warning' : 'success',
      );
    } catch (failure) {
      setError(getServerMessage(failure) ?? 'Failed to import subscribers. Please try again.');
    } finally {
      setProgress(null);
    }
  };

  return (
    <ModalDialog title="Import Subscribers" onClose={onClose} widthClass="max-w-2xl">
      {report ? (
        <div className="space-y-4">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3" aria-label="Import summary">
            {(
              [
                ['Rows read', report.totalRows],
                ['Imported', report.imported],
                ['Already subscribed', report.alreadySubscribed],
                ['Opted out (kept out)', report.previouslyUnsubscribed],
                ['Duplicates in file', report.duplicatesInFile],
                ['Invalid rows', report.invalidRows],
              ] as const
            ).map(([label, value]) => (
              <div key={label} className="rounded-lg bg-slate-50 p-3">
                <dt className="text-xs text-slate-500">{label}</dt>
                <dd className="text-lg font-semibold text-slate-900 tabular-nums">
                  {value.toLocaleString()}
                </dd>
              </div>
            ))}
          </dl>
          {report.attributeColumns.length > 0 ? (
            <p className="rounded-lg bg-indigo-50 p-3 text-sm text-indigo-800" data-testid="import-fields">
              Fields set from the file: {report.attributeColumns.join(', ')}
              {report.ignoredColumns.length > 0
                ? ` (columns left out: ${report.ignoredColumns.join(', ')})`
                : ''}
            </p>
          ) : null}
          {report.refusedByLimit > 0 ? (
            <p role="alert" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-800">
              {PLAN_LIMIT_MESSAGES.importRowsRefused(report.refusedByLimit, report.subscribersLimit)}
            </p>
          ) : null}
          {report.errors.length > 0 ? (
            <div>
              <h3 className="text-sm font-medium text-slate-900">
                Refused lines
                {report.invalidRows > report.errors.length
                  ? ` (first ${report.errors.length} of ${report.invalidRows.toLocaleString()})`
                  : ''}
              </h3>
              <div className="mt-2 max-h-64 overflow-y-auto rounded-lg ring-1 ring-slate-200">
                <table className="min-w-full text-sm" aria-label="Import errors">
                  <thead className="sticky top-0 bg-slate-50 text-left text-xs text-slate-500 uppercase">
                    <tr>
                      <th className="px-3 py-2">Line</th>
                      <th className="px-3 py-2">Value</th>
                      <th className="px-3 py-2">Problem</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {report.errors.map((item) => (
                      <tr key={item.line}>
                        <td className="px-3 py-1.5 tabular-nums">{item.line}</td>
                        <td className="px-3 py-1.5 font-mono text-xs">{item.value || '(empty)'}</td>
                        <td className="px-3 py-1.5 text-red-700">{item.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </div>
          ) : null}
          <div className="flex justify-end">
            <Button onClick={onClose}>Done</Button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit} className="space-y-4" noValidate>
          {error ? (
            <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
              {error}
            </p>
          ) : null}
          <p className="text-sm text-slate-600">
            One phone number per line. A header such as <code>phone</code> or <code>msisdn</code> picks the
            column; otherwise the first column is read. Numbers without a country code use your company's
            country. Other columns of the header become the subscribers' merge fields: <code>First Name</code>{' '}
            is <code>{'{{first_name}}'}</code> in a message.
          </p>
          <ServiceSelect
            id="import-service"
            services={services}
            withCompany={withCompany}
            value={serviceId}
            onChange={setServiceId}
          />
          <div>
            <label htmlFor="import-file" className="block text-sm font-medium text-slate-700">
              CSV file
            </label>
            <input
              id="import-file"
              type="file"
              accept=".csv,text/csv,text/plain"
              onChange={(event) => setFile(event.target.files?.[0] ?? null)}
              className="mt-1 block w-full text-sm text-slate-700 file:mr-3 file:rounded-lg file:border-0 file:bg-indigo-50 file:px-3 file:py-2 file:text-sm file:font-medium file:text-indigo-700 hover:file:bg-indigo-100"
            />
          </div>
          {progress ? <ImportProgress read={progress.read} total={progress.total} /> : null}
          <FormActions
            onCancel={onClose}
            isPending={importSubscribers.isPending}
            submitLabel="Import"
            pendingLabel="Importing..."
          />
        </form>
      )}
    </ModalDialog>
  );
}

/**
 * Rows read as the upload goes; then, with every row read, the import writing them all at once
 * (one statement after the upload, ADR 0013), whose counts the report shows when it is done.
 */
function ImportProgress({ read, total }: { read: number; total: number }) {
  const done = total > 0 && read >= total;
  return (
    <div
      role="status"
      className="space-y-2 rounded-lg bg-slate-50 p-3 text-sm text-slate-700"
      data-testid="import-progress"
    >
      <p className="tabular-nums">
        {done
          ? `All ${countOf(total, 'row', 'rows')} read. Importing them...`
          : `Rows read: ${read.toLocaleString()} of ${total.toLocaleString()}`}
      </p>
      <progress
        className="h-2 w-full"
        max={Math.max(total, 1)}
        value={done ? undefined : read}
        aria-hidden="true"
      />
    </div>
  );
}
