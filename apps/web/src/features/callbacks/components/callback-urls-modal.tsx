import { CALLBACK_MESSAGES } from '@sms/contracts/callbacks/callback-urls';
import { type ReactNode, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { type TCallbackScope, useCallbackUrls } from '../api/get-callback-urls.ts';
import { useRegenerateCallbackUrls } from '../api/regenerate-callback-urls.ts';

type TCallbackUrlsModalProps = {
  scope: TCallbackScope;
  /** Known before the fetch (the row clicked, the signed-in admin's company): titles the modal while loading and on error. */
  companyName?: string;
  onClose: () => void;
};

export const REGENERATE_CONFIRMATION =
  'Regenerate both callback URLs? The current URLs stop working immediately, so paste the new ones into your SMS provider’s dashboard straight away.';

export function CallbackUrlsModal({ scope, companyName, onClose }: TCallbackUrlsModalProps) {
  const urls = useCallbackUrls(scope);
  const regenerate = useRegenerateCallbackUrls(scope);
  const [confirming, setConfirming] = useState(false);
  const { showToast } = useToast();
  const name = urls.data?.companyName ?? companyName ?? '';

  function confirmRegenerate() {
    setConfirming(false);
    regenerate.mutate(undefined, {
      onSuccess: () => showToast(CALLBACK_MESSAGES.regenerated, 'success'),
    });
  }

  let body: ReactNode;
  if (urls.isPending) {
    body = (
      <div
        className="flex items-center justify-center gap-3 py-10 text-sm text-slate-600"
        data-state="loading"
      >
        <Spinner label="Loading callback URLs" className="size-6" />
        Loading callback URLs...
      </div>
    );
  } else if (urls.isError) {
    body = (
      <div
        role="alert"
        data-state="error"
        className="space-y-3 rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-700"
      >
        <p className="font-medium">{CALLBACK_MESSAGES.fetchFailed}</p>
        {getServerMessage(urls.error) ? <p>{getServerMessage(urls.error)}</p> : null}
        <Button variant="secondary" size="sm" onClick={() => urls.refetch()}>
          Retry
        </Button>
      </div>
    );
  } else {
    body = (
      <div className="space-y-5" data-state={regenerate.isPending ? 'regenerating' : 'loaded'}>
        {regenerate.isError ? (
          <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
            {CALLBACK_MESSAGES.regenerateFailed}
            {getServerMessage(regenerate.error) ? `: ${getServerMessage(regenerate.error)}` : ''}
          </div>
        ) : null}
        {regenerate.isSuccess ? (
          // Also said inside the dialog: a modal dialog hides the page's toasts from screen readers.
          <p
            role="status"
            className="rounded-lg border border-green-200 bg-green-50 p-3 text-sm text-green-800"
          >
            {CALLBACK_MESSAGES.regenerated}
          </p>
        ) : null}
        <CallbackUrlField
          label="Subscription Callback URL"
          hint="Receives subscribe and unsubscribe notifications."
          value={urls.data.subscriptionCallbackUrl}
          disabled={regenerate.isPending}
        />
        <CallbackUrlField
          label="Delivery Report (DLR) Callback URL"
          hint="Receives the delivery status of every message sent."
          value={urls.data.dlrCallbackUrl}
          disabled={regenerate.isPending}
        />
        <div className="flex flex-wrap items-center gap-3">
          <Button variant="secondary" onClick={() => setConfirming(true)} disabled={regenerate.isPending}>
            {regenerate.isPending ? (
              <>
                <Spinner label="Regenerating" className="size-4" /> Regenerating...
              </>
            ) : (
              'Regenerate URLs'
            )}
          </Button>
          <span className="text-xs text-slate-500">
            Regenerating replaces both URLs; the old ones stop working at once.
          </span>
        </div>
        <ConfigurationInstructions />
      </div>
    );
  }

  return (
    <>
      <ModalDialog
        title={name ? `Callback URLs - ${name}` : 'Callback URLs'}
        onClose={onClose}
        widthClass="max-w-2xl"
      >
        {body}
      </ModalDialog>
      {confirming ? (
        <ConfirmDialog
          title="Regenerate callback URLs"
          message={REGENERATE_CONFIRMATION}
          confirmLabel="Regenerate URLs"
          onConfirm={confirmRegenerate}
          onCancel={() => setConfirming(false)}
        />
      ) : null}
    </>
  );
}

function CallbackUrlField({
  label,
  hint,
  value,
  disabled,
}: {
  label: string;
  hint: string;
  value: string | null;
  disabled: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const id = label.toLowerCase().replace(/[^a-z]+/g, '-');

  async function copy() {
    if (!value) return;
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Clipboard refused (insecure origin or permissions): select the text so Ctrl+C works.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
  }

  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <p className="text-xs text-slate-500">{hint}</p>
      <div className="mt-1.5 flex gap-2">
        <input
          id={id}
          readOnly
          value={value ?? ''}
          placeholder={CALLBACK_MESSAGES.notGenerated}
          onFocus={(event) => event.currentTarget.select()}
          className={`block w-full min-w-0 rounded-lg border-0 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-800 ring-1 ring-inset ring-slate-300 placeholder:font-sans placeholder:text-slate-400 ${disabled ? 'opacity-50' : ''}`}
        />
        <Button
          variant="secondary"
          size="sm"
          onClick={copy}
          disabled={!value || disabled}
          aria-label={`Copy ${label}`}
        >
          {copied ? 'Copied!' : 'Copy'}
        </Button>
      </div>
    </div>
  );
}

function ConfigurationInstructions() {
  return (
    <section className="rounded-lg border border-indigo-100 bg-indigo-50/60 p-4 text-sm text-slate-700">
      <h3 className="font-semibold text-slate-900">How to configure your SMS provider</h3>
      <ol className="mt-2 list-decimal space-y-1.5 pl-5">
        <li>Sign in to your SMS provider's dashboard (for Africa's Talking: your app or sandbox account).</li>
        <li>
          Open the SMS callback settings. Find the field for subscription (or opt-in/opt-out) notifications,
          click <strong>Copy</strong> beside the Subscription Callback URL above and paste it there.
        </li>
        <li>
          Find the field for delivery reports (often called “Delivery Reports” or “DLR callback URL”), copy
          the Delivery Report URL above and paste it there.
        </li>
        <li>
          Save the settings in the provider's dashboard. Both URLs accept POST requests, form-encoded or JSON.
        </li>
        <li>
          Keep these URLs private: each carries a secret token. If one may have leaked, click{' '}
          <strong>Regenerate URLs</strong> and paste the new URLs into the provider's dashboard again; the old
          ones stop working at once.
        </li>
      </ol>
    </section>
  );
}
