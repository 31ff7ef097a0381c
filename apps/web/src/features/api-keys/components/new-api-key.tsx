import { API_KEY_MESSAGES } from '@sms/contracts/api-keys/api-key';
import { useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { AlertIcon } from '../../../components/icons.tsx';

/** The new key, shown this once, with a copy button; closing forgets it. */
export function NewApiKey({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Clipboard refused (insecure origin or permissions): select the text so Ctrl+C works.
      (document.getElementById('new-api-key') as HTMLInputElement | null)?.select();
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
          <strong>{API_KEY_MESSAGES.shownOnce}</strong> Store it somewhere safe, such as your system’s secret
          store. If it is lost, revoke it and create another.
        </p>
      </div>
      <div>
        <label htmlFor="new-api-key" className="block text-sm font-medium text-slate-700">
          {name}
        </label>
        <div className="mt-1.5 flex gap-2">
          <input
            id="new-api-key"
            readOnly
            value={secret}
            onFocus={(event) => event.currentTarget.select()}
            className="block w-full min-w-0 rounded-lg border-0 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-800 ring-1 ring-inset ring-slate-300"
          />
          <Button variant="secondary" size="sm" onClick={copy} aria-label="Copy API key">
            {copied ? 'Copied!' : 'Copy'}
          </Button>
        </div>
        <p className="mt-2 text-xs text-slate-500">
          Send it with every request: <code className="font-mono">Authorization: Bearer {'<key>'}</code>
        </p>
      </div>
      <div className="flex justify-end pt-2">
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
