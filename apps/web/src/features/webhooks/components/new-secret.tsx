import { WEBHOOK_MESSAGES, WEBHOOK_SIGNATURE_HEADER } from '@sms/contracts/webhooks/webhook';
import { useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { AlertIcon } from '../../../components/icons.tsx';

/** The new endpoint's signing secret, shown this once, with a copy button; closing forgets it. */
export function NewSecret({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      (document.getElementById('new-webhook-secret') as HTMLInputElement | null)?.select();
    }
  }

  return (
    <div className="space-y-4" data-state="created">
      <div
        role="status"
        className="flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
      >
        <AlertIcon className="mt-0.5 size-4 shrink-0" />
        <p>
          <strong>{WEBHOOK_MESSAGES.secretShownOnce}</strong> Your receiver needs it to check the{' '}
          <code className="font-mono">{WEBHOOK_SIGNATURE_HEADER}</code> header. If it is lost, delete the
          endpoint and add it again.
        </p>
      </div>
      <div>
        <label htmlFor="new-webhook-secret" className="block text-sm font-medium text-slate-700">
          Signing secret for {url}
        </label>
        <div className="mt-1.5 flex gap-2">
          <input
            id="new-webhook-secret"
            readOnly
            value={secret}
            onFocus={(event) => event.currentTarget.select()}
            className="block w-full min-w-0 rounded-lg border-0 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-800 ring-1 ring-inset ring-slate-300"
          />
          <Button variant="secondary" size="sm" onClick={copy} aria-label="Copy signing secret">
            {copied ? 'Copied!' : 'Copy'}
          </Button>
        </div>
      </div>
      <div className="flex justify-end pt-2">
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
