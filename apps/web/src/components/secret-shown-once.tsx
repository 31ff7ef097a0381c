import { type ReactNode, useState } from 'react';
import { Button } from './button.tsx';
import { AlertIcon } from './icons.tsx';

/**
 * A secret the server shows this once (an API key, a webhook signing secret): a warning, the value
 * with a copy button, and Done, after which the console forgets it.
 */
export function SecretShownOnce({
  inputId,
  label,
  secret,
  copyLabel,
  warning,
  hint,
  onDone,
}: {
  inputId: string;
  label: ReactNode;
  secret: string;
  copyLabel: string;
  warning: ReactNode;
  hint?: ReactNode;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Clipboard refused (insecure origin or permissions): select the text so Ctrl+C works.
      (document.getElementById(inputId) as HTMLInputElement | null)?.select();
    }
  }

  return (
    <div className="space-y-4" data-state="created">
      <div
        role="status"
        className="flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
      >
        <AlertIcon className="mt-0.5 size-4 shrink-0" />
        <p>{warning}</p>
      </div>
      <div>
        <label htmlFor={inputId} className="block text-sm font-medium text-slate-700">
          {label}
        </label>
        <div className="mt-1.5 flex gap-2">
          <input
            id={inputId}
            readOnly
            value={secret}
            onFocus={(event) => event.currentTarget.select()}
            className="block w-full min-w-0 rounded-lg border-0 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-800 ring-1 ring-inset ring-slate-300"
          />
          <Button variant="secondary" size="sm" onClick={copy} aria-label={copyLabel}>
            {copied ? 'Copied!' : 'Copy'}
          </Button>
        </div>
        {hint && <p className="mt-2 text-xs text-slate-500">{hint}</p>}
      </div>
      <div className="flex justify-end pt-2">
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
