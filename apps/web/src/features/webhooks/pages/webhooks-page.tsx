import {
  type TWebhookDelivery,
  type TWebhookEndpoint,
  WEBHOOK_DELIVERIES_KEPT_DAYS,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_MESSAGES,
  WEBHOOK_REPLAY_WINDOW_SECONDS,
  WEBHOOK_RETRY_HOURS,
  WEBHOOK_SIGNATURE_HEADER,
} from '@sms/contracts/webhooks/webhook';
import { useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { TableLoading, TableTryAgainError } from '../../../components/data-table-states.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { formatDate, formatDateTime } from '../../../lib/format-date.ts';
import {
  useCreateWebhook,
  useDeleteWebhook,
  useSendTestEvent,
  useUpdateWebhook,
  useWebhookDeliveries,
  useWebhookEndpoints,
} from '../api/webhooks.ts';
import { EndpointForm, type TEndpointFormValues } from '../components/endpoint-form.tsx';
import { NewSecret } from '../components/new-secret.tsx';

type TEditing =
  | { step: 'form'; endpoint?: TWebhookEndpoint }
  | { step: 'created'; url: string; secret: string }
  | null;

const SAVE_FAILED = 'Failed to save webhook endpoint';
const DELETE_FAILED = 'Failed to delete webhook endpoint';

/** A company admin's webhook endpoints: list, add (the secret shown once), edit, delete, test, deliveries. */
export default function WebhooksPage() {
  const endpoints = useWebhookEndpoints();
  const createEndpoint = useCreateWebhook();
  const updateEndpoint = useUpdateWebhook();
  const deleteEndpoint = useDeleteWebhook();
  const sendTest = useSendTestEvent();
  const { showToast } = useToast();
  const [editing, setEditing] = useState<TEditing>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<TWebhookEndpoint | null>(null);
  const [selectedId, setSelectedId] = useState<number | null>(null);

  const closeForm = () => {
    setEditing(null);
    setFormError(null);
  };

  const save = async (values: TEndpointFormValues) => {
    setFormError(null);
    try {
      if (editing?.step === 'form' && editing.endpoint) {
        await updateEndpoint.mutateAsync({ id: editing.endpoint.id, change: values });
        showToast(WEBHOOK_MESSAGES.updated, 'success');
        closeForm();
      } else {
        const created = await createEndpoint.mutateAsync(values);
        showToast(WEBHOOK_MESSAGES.created, 'success');
        setEditing({ step: 'created', url: created.endpoint.url, secret: created.secret });
      }
    } catch (error) {
      const reason = getServerMessage(error);
      setFormError(reason ? `${SAVE_FAILED}: ${reason}` : SAVE_FAILED);
    }
  };

  const setEnabled = async (endpoint: TWebhookEndpoint, enabled: boolean) => {
    try {
      await updateEndpoint.mutateAsync({ id: endpoint.id, change: { enabled } });
      showToast(WEBHOOK_MESSAGES.updated, 'success');
    } catch (error) {
      showToast(getServerMessage(error) ?? SAVE_FAILED, 'error');
    }
  };

  const test = async (endpoint: TWebhookEndpoint) => {
    setSelectedId(endpoint.id);
    try {
      const { delivery } = await sendTest.mutateAsync(endpoint.id);
      if (delivery.succeeded)
        showToast(`${WEBHOOK_MESSAGES.testSent}: HTTP ${delivery.statusCode}`, 'success');
      else showToast(`${WEBHOOK_MESSAGES.testFailed}: ${delivery.error ?? 'no answer'}`, 'error');
    } catch (error) {
      showToast(getServerMessage(error) ?? WEBHOOK_MESSAGES.testFailed, 'error');
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await deleteEndpoint.mutateAsync(deleting.id);
      showToast(WEBHOOK_MESSAGES.deleted, 'success');
      if (selectedId === deleting.id) setSelectedId(null);
    } catch {
      showToast(DELETE_FAILED, 'error');
    } finally {
      setDeleting(null);
    }
  };

  const all = endpoints.data?.endpoints ?? [];
  const selected = all.find((endpoint) => endpoint.id === selectedId) ?? null;

  return (
    <div className="space-y-6">
      <PageHeader
        title="Webhook Endpoints"
        description="Your systems are told when messages are sent, delivered, fail or arrive, and when people subscribe or leave: signed HTTPS requests, retried for a day."
        actions={<Button onClick={() => setEditing({ step: 'form' })}>Add Endpoint</Button>}
      />

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        {endpoints.isPending ? (
          <TableLoading label="Loading webhook endpoints" roomy />
        ) : endpoints.isError ? (
          <TableTryAgainError message={WEBHOOK_MESSAGES.fetchFailed} onRetry={() => endpoints.refetch()} />
        ) : all.length === 0 ? (
          <div className="py-16 text-center">
            <p className="text-sm font-medium text-slate-900">No webhook endpoints yet</p>
            <p className="mt-1 text-sm text-slate-500">Add an endpoint to receive events as they happen.</p>
          </div>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full divide-y divide-slate-200 text-sm">
              <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
                <tr>
                  <th className="px-3 py-3">Endpoint</th>
                  <th className="px-3 py-3">Events</th>
                  <th className="px-3 py-3">Status</th>
                  <th className="px-3 py-3 whitespace-nowrap">Created</th>
                  <th className="px-3 py-3 text-right">Actions</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {all.map((endpoint) => (
                  <EndpointRow
                    key={endpoint.id}
                    endpoint={endpoint}
                    selected={endpoint.id === selectedId}
                    onDeliveries={() => setSelectedId(endpoint.id === selectedId ? null : endpoint.id)}
                    onTest={() => test(endpoint)}
                    testing={sendTest.isPending && sendTest.variables === endpoint.id}
                    onEdit={() => setEditing({ step: 'form', endpoint })}
                    onToggle={() => setEnabled(endpoint, !endpoint.enabled)}
                    onDelete={() => setDeleting(endpoint)}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>

      {selected ? <Deliveries endpoint={selected} /> : null}

      <VerificationHelp />

      {editing ? (
        <ModalDialog
          title={
            editing.step === 'created'
              ? 'Webhook Endpoint Added'
              : editing.endpoint
                ? 'Edit Webhook Endpoint'
                : 'Add Webhook Endpoint'
          }
          onClose={closeForm}
        >
          {editing.step === 'created' ? (
            <NewSecret url={editing.url} secret={editing.secret} onDone={closeForm} />
          ) : (
            <EndpointForm
              endpoint={editing.endpoint}
              onSubmit={save}
              onCancel={closeForm}
              isSubmitting={createEndpoint.isPending || updateEndpoint.isPending}
              error={formError}
            />
          )}
        </ModalDialog>
      ) : null}

      {deleting ? (
        <ConfirmDialog
          title="Delete Webhook Endpoint"
          message={`Delete ${deleting.url}? Nothing more is sent to it and its delivery history goes too. This cannot be undone.`}
          confirmLabel="Delete"
          pendingLabel="Deleting..."
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
          isPending={deleteEndpoint.isPending}
        />
      ) : null}
    </div>
  );
}

function StatusBadge({ endpoint }: { endpoint: TWebhookEndpoint }) {
  if (!endpoint.enabled)
    return (
      <div>
        <span className="inline-flex rounded-full bg-red-50 px-2 py-0.5 text-xs font-medium text-red-700 ring-1 ring-inset ring-red-600/20">
          Disabled
        </span>
        {endpoint.disabledReason ? (
          <p className="mt-1 max-w-56 text-xs text-slate-500">{endpoint.disabledReason}</p>
        ) : null}
      </div>
    );
  if (endpoint.failingSince)
    return (
      <div>
        <span className="inline-flex rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-inset ring-amber-600/20">
          Failing
        </span>
        <p className="mt-1 text-xs text-slate-500">
          since {formatDateTime(endpoint.failingSince)}; retried for {WEBHOOK_RETRY_HOURS} h
        </p>
      </div>
    );
  return (
    <span className="inline-flex rounded-full bg-green-50 px-2 py-0.5 text-xs font-medium text-green-700 ring-1 ring-inset ring-green-600/20">
      Enabled
    </span>
  );
}

type TEndpointRowProps = {
  endpoint: TWebhookEndpoint;
  selected: boolean;
  testing: boolean;
  onDeliveries: () => void;
  onTest: () => void;
  onEdit: () => void;
  onToggle: () => void;
  onDelete: () => void;
};

function EndpointRow({ endpoint, selected, testing, ...actions }: TEndpointRowProps) {
  return (
    <tr className={selected ? 'bg-indigo-50/40' : 'hover:bg-slate-50'}>
      <td className="px-3 py-3">
        <p className="max-w-80 min-w-56 font-mono text-xs break-all text-slate-900">{endpoint.url}</p>
        {endpoint.description ? <p className="text-xs text-slate-500">{endpoint.description}</p> : null}
        <p className="text-xs text-slate-400">Secret {endpoint.secretPrefix}…</p>
      </td>
      <td className="px-3 py-3">
        <div className="flex max-w-72 flex-wrap gap-1">
          {endpoint.eventTypes.map((type) => (
            <span
              key={type}
              title={type}
              className="inline-flex rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-indigo-700 ring-1 ring-inset ring-indigo-600/20"
            >
              {WEBHOOK_EVENT_LABELS[type]}
            </span>
          ))}
        </div>
      </td>
      <td className="px-3 py-3">
        <StatusBadge endpoint={endpoint} />
      </td>
      <td className="px-3 py-3 whitespace-nowrap text-slate-600">{formatDate(endpoint.createdAt)}</td>
      <td className="px-3 py-3 text-right whitespace-nowrap">
        <Button variant="ghost" size="sm" onClick={actions.onDeliveries} aria-pressed={selected}>
          Deliveries
        </Button>
        <Button variant="ghost" size="sm" onClick={actions.onTest} disabled={testing}>
          {testing ? 'Sending...' : 'Send test event'}
        </Button>
        <Button variant="ghost" size="sm" onClick={actions.onEdit} aria-label={`Edit ${endpoint.url}`}>
          Edit
        </Button>
        <Button variant="ghost" size="sm" onClick={actions.onToggle}>
          {endpoint.enabled ? 'Disable' : 'Enable'}
        </Button>
        <Button
          variant="ghost"
          size="sm"
          className="text-red-600 hover:text-red-700"
          aria-label={`Delete ${endpoint.url}`}
          onClick={actions.onDelete}
        >
          Delete
        </Button>
      </td>
    </tr>
  );
}

function Deliveries({ endpoint }: { endpoint: TWebhookEndpoint }) {
  const deliveries = useWebhookDeliveries(endpoint.id);
  const rows = deliveries.data?.deliveries ?? [];
  return (
    <section
      aria-label={`Deliveries to ${endpoint.url}`}
      className="rounded-xl border border-slate-200 bg-white shadow-sm"
    >
      <div className="flex items-center justify-between border-b border-slate-200 px-4 py-3">
        <h2 className="text-sm font-semibold text-slate-900">
          Deliveries <span className="font-mono text-xs font-normal text-slate-500">{endpoint.url}</span>
        </h2>
        <p className="text-xs text-slate-500">
          {endpoint.pendingEvents} event{endpoint.pendingEvents === 1 ? '' : 's'} waiting · requests of the
          last {WEBHOOK_DELIVERIES_KEPT_DAYS} days
        </p>
      </div>
      {deliveries.isPending ? (
        <TableLoading label="Loading deliveries" />
      ) : deliveries.isError ? (
        <TableTryAgainError message="Failed to load deliveries" onRetry={() => deliveries.refetch()} />
      ) : rows.length === 0 ? (
        <p className="px-4 py-8 text-center text-sm text-slate-500">Nothing delivered yet.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
              <tr>
                <th className="px-3 py-2">Time</th>
                <th className="px-3 py-2">Events</th>
                <th className="px-3 py-2">Attempt</th>
                <th className="px-3 py-2">Response</th>
                <th className="px-3 py-2">Duration</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((delivery) => (
                <DeliveryRow key={delivery.id} delivery={delivery} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function DeliveryRow({ delivery }: { delivery: TWebhookDelivery }) {
  const range =
    delivery.firstEventId && delivery.lastEventId && delivery.firstEventId !== delivery.lastEventId
      ? `${delivery.firstEventId} … ${delivery.lastEventId}`
      : delivery.firstEventId;
  return (
    <tr>
      <td className="px-3 py-2 whitespace-nowrap text-slate-600">{formatDateTime(delivery.createdAt)}</td>
      <td className="px-3 py-2">
        <p className="text-slate-900">
          {delivery.isTest
            ? 'Test event'
            : `${delivery.eventCount} event${delivery.eventCount === 1 ? '' : 's'}`}
          : <span className="font-mono text-xs">{delivery.eventTypes.join(', ')}</span>
        </p>
        {range ? <p className="font-mono text-xs text-slate-400">{range}</p> : null}
      </td>
      <td className="px-3 py-2 text-slate-600">{delivery.attempt}</td>
      <td className="px-3 py-2">
        <span className={delivery.succeeded ? 'text-green-700' : 'text-red-700'}>
          {delivery.statusCode ?? 'No answer'}
        </span>
        {delivery.error && !delivery.succeeded && delivery.statusCode === null ? (
          <p className="max-w-64 text-xs text-slate-500">{delivery.error}</p>
        ) : null}
      </td>
      <td className="px-3 py-2 whitespace-nowrap text-slate-600">{delivery.durationMs} ms</td>
    </tr>
  );
}

function VerificationHelp() {
  return (
    <section className="rounded-xl border border-indigo-100 bg-indigo-50/60 p-4 text-sm text-slate-700">
      <h2 className="font-semibold text-slate-900">Checking a request</h2>
      <ul className="mt-2 list-disc space-y-1.5 pl-5">
        <li>
          Each request is a POST of <code className="font-mono text-xs">{'{ "events": [...] }'}</code>, oldest
          first, with the header{' '}
          <code className="font-mono text-xs">
            {WEBHOOK_SIGNATURE_HEADER}: t=&lt;unix time&gt;,v1=&lt;signature&gt;
          </code>
          .
        </li>
        <li>
          The signature is the hex HMAC-SHA256 of <code className="font-mono text-xs">t.body</code> (the raw
          body) with the endpoint's secret. Refuse a <code className="font-mono text-xs">t</code> more than{' '}
          {WEBHOOK_REPLAY_WINDOW_SECONDS / 60} minutes from your clock.
        </li>
        <li>
          Answer 2xx once stored. Failures are retried with growing pauses for {WEBHOOK_RETRY_HOURS} hours;
          then the endpoint is disabled until you enable it again. The API guide (docs/api.md) has a Node
          example.
        </li>
      </ul>
    </section>
  );
}
