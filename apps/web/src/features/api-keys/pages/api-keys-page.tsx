import { API_KEY_MESSAGES, API_KEY_SCOPE_LABELS, type TApiKey } from '@sms/contracts/api-keys/api-key';
import { useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { TableLoading, TableTryAgainError } from '../../../components/data-table-states.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { formatDate, formatDateTime } from '../../../lib/format-date.ts';
import { useCreateApiKey } from '../api/create-api-key.ts';
import { useApiKeys } from '../api/list-api-keys.ts';
import { useRevokeApiKey } from '../api/revoke-api-key.ts';
import { CreateApiKeyForm } from '../components/create-api-key-form.tsx';
import { NewApiKey } from '../components/new-api-key.tsx';

type TCreating = { step: 'form' } | { step: 'created'; name: string; secret: string } | null;

const CREATE_FAILED = 'Failed to create API key';
const REVOKE_FAILED = 'Failed to revoke API key';

/** A company admin's API keys: list, create (the key shown once) and revoke. */
export default function ApiKeysPage() {
  const keys = useApiKeys();
  const createKey = useCreateApiKey();
  const revokeKey = useRevokeApiKey();
  const { showToast } = useToast();
  const [creating, setCreating] = useState<TCreating>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<TApiKey | null>(null);

  const closeCreate = () => {
    setCreating(null);
    setFormError(null);
  };

  const create = async (values: { name: string; scopes: TApiKey['scopes'] }) => {
    setFormError(null);
    try {
      const created = await createKey.mutateAsync(values);
      showToast(API_KEY_MESSAGES.created, 'success');
      setCreating({ step: 'created', name: created.apiKey.name, secret: created.key });
    } catch (error) {
      const reason = getServerMessage(error);
      setFormError(reason ? `${CREATE_FAILED}: ${reason}` : CREATE_FAILED);
    }
  };

  const confirmRevoke = async () => {
    if (!revoking) return;
    try {
      await revokeKey.mutateAsync(revoking.id);
      showToast(API_KEY_MESSAGES.revoked, 'success');
    } catch {
      showToast(REVOKE_FAILED, 'error');
    } finally {
      setRevoking(null);
    }
  };

  const all = keys.data?.apiKeys ?? [];

  return (
    <div className="space-y-6">
      <PageHeader
        title="API Keys"
        description="Keys let your own systems call the SMS API for your company, each limited to the scopes you choose."
        actions={<Button onClick={() => setCreating({ step: 'form' })}>Create API Key</Button>}
      />

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        {keys.isPending ? (
          <TableLoading label="Loading API keys" roomy />
        ) : keys.isError ? (
          <TableTryAgainError message={API_KEY_MESSAGES.fetchFailed} onRetry={() => keys.refetch()} />
        ) : all.length === 0 ? (
          <div className="py-16 text-center">
            <p className="text-sm font-medium text-slate-900">No API keys yet</p>
            <p className="mt-1 text-sm text-slate-500">
              Create a key to connect your billing, CRM or other systems.
            </p>
          </div>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full divide-y divide-slate-200 text-sm">
              <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
                <tr>
                  <th className="px-3 py-3">Name</th>
                  <th className="px-3 py-3">Key</th>
                  <th className="px-3 py-3">Scopes</th>
                  <th className="px-3 py-3 whitespace-nowrap">Created</th>
                  <th className="px-3 py-3 whitespace-nowrap">Last used</th>
                  <th className="px-3 py-3">Status</th>
                  <th className="px-3 py-3 text-right">Actions</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {all.map((key) => (
                  <ApiKeyRow key={key.id} apiKey={key} onRevoke={() => setRevoking(key)} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>

      <UsageHelp />

      {creating ? (
        <ModalDialog
          title={creating.step === 'created' ? 'API Key Created' : 'Create API Key'}
          onClose={closeCreate}
        >
          {creating.step === 'created' ? (
            <NewApiKey name={creating.name} secret={creating.secret} onDone={closeCreate} />
          ) : (
            <CreateApiKeyForm
              onSubmit={create}
              onCancel={closeCreate}
              isSubmitting={createKey.isPending}
              error={formError}
            />
          )}
        </ModalDialog>
      ) : null}

      {revoking ? (
        <ConfirmDialog
          title="Revoke API Key"
          message={`Revoke ${revoking.name} (${revoking.prefix})? Requests made with it are refused from now on. This cannot be undone.`}
          confirmLabel="Revoke"
          pendingLabel="Revoking..."
          onConfirm={confirmRevoke}
          onCancel={() => setRevoking(null)}
          isPending={revokeKey.isPending}
        />
      ) : null}
    </div>
  );
}

function ApiKeyRow({ apiKey, onRevoke }: { apiKey: TApiKey; onRevoke: () => void }) {
  const revoked = apiKey.revokedAt !== null;
  return (
    <tr className={revoked ? 'text-slate-400' : 'hover:bg-slate-50'}>
      <td className="px-3 py-3">
        <p className={`min-w-40 font-medium ${revoked ? 'text-slate-500' : 'text-slate-900'}`}>
          {apiKey.name}
        </p>
      </td>
      <td className="px-3 py-3 font-mono text-xs whitespace-nowrap">{apiKey.prefix}_…</td>
      <td className="px-3 py-3">
        <div className="flex flex-wrap gap-1">
          {apiKey.scopes.map((scope) => (
            <span
              key={scope}
              className="inline-flex rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-indigo-700 ring-1 ring-inset ring-indigo-600/20"
            >
              {API_KEY_SCOPE_LABELS[scope]}
            </span>
          ))}
        </div>
      </td>
      <td className="px-3 py-3 whitespace-nowrap text-slate-600">
        {formatDate(apiKey.createdAt)}
        {apiKey.createdByName ? <p className="text-xs text-slate-500">by {apiKey.createdByName}</p> : null}
      </td>
      <td className="px-3 py-3 whitespace-nowrap text-slate-600">
        {formatDateTime(apiKey.lastUsedAt) ?? 'Never'}
      </td>
      <td className="px-3 py-3">
        {revoked ? (
          <span className="inline-flex rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-600 ring-1 ring-inset ring-slate-500/20">
            Revoked {formatDate(apiKey.revokedAt)}
          </span>
        ) : (
          <span className="inline-flex rounded-full bg-green-50 px-2 py-0.5 text-xs font-medium text-green-700 ring-1 ring-inset ring-green-600/20">
            Active
          </span>
        )}
      </td>
      <td className="px-3 py-3 text-right whitespace-nowrap">
        {revoked ? null : (
          <Button
            variant="ghost"
            size="sm"
            className="text-red-600 hover:text-red-700"
            aria-label={`Revoke ${apiKey.name}`}
            onClick={onRevoke}
          >
            Revoke
          </Button>
        )}
      </td>
    </tr>
  );
}

function UsageHelp() {
  return (
    <section className="rounded-xl border border-indigo-100 bg-indigo-50/60 p-4 text-sm text-slate-700">
      <h2 className="font-semibold text-slate-900">Using a key</h2>
      <ul className="mt-2 list-disc space-y-1.5 pl-5">
        <li>
          Send it in the <code className="font-mono">Authorization</code> header of each request:{' '}
          <code className="font-mono text-xs">Authorization: Bearer smsk_live_…</code>
        </li>
        <li>
          A key opens only the routes of its scopes; any other route answers 403. The API reference at{' '}
          <a
            className="font-medium text-indigo-700 underline"
            href="/api/docs"
            target="_blank"
            rel="noreferrer"
          >
            /api/docs
          </a>{' '}
          names the scope each route needs.
        </li>
        <li>
          Each key has its own rate limit. Actions taken with a key appear in the audit trail under its name.
        </li>
        <li>Revoking a key stops it at once. Keys stop working while your company is suspended.</li>
      </ul>
    </section>
  );
}
