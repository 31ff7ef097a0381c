import type { ReactNode } from 'react';
import { Button } from './button.tsx';
import { AlertIcon } from './icons.tsx';
import { Spinner } from './spinner.tsx';

// Two looks: the admin tables are compact; the services and subscribers pages are roomy.
type TDensity = { roomy?: boolean };

const padding = (roomy?: boolean) => (roomy ? 'py-16' : 'py-12');

export function TableLoading({ label, roomy }: TDensity & { label: string }) {
  return (
    <div className={`flex justify-center ${padding(roomy)}`}>
      <Spinner label={label} />
    </div>
  );
}

export function TableEmpty({ children, roomy }: TDensity & { children: ReactNode }) {
  return (
    <p
      className={`${padding(roomy)} text-center text-sm ${roomy ? 'font-medium text-slate-900' : 'text-slate-500'}`}
    >
      {children}
    </p>
  );
}

/** The compact admin error: the message in red and a small Retry. */
export function TableRetryError({ message, onRetry }: { message: ReactNode; onRetry: () => void }) {
  return (
    <div role="alert" className="flex flex-col items-center gap-3 py-12 text-sm text-red-700">
      <p>{message}</p>
      <Button variant="secondary" size="sm" onClick={onRetry}>
        Retry
      </Button>
    </div>
  );
}

type TTryAgainErrorProps = { title?: string; message: string; onRetry: () => void };

/** The roomy error: an alert icon, an optional title above the message, and Try Again. */
export function TableTryAgainError({ title, message, onRetry }: TTryAgainErrorProps) {
  return (
    <div role="alert" className={`flex flex-col items-center py-16 text-center ${title ? 'gap-2' : 'gap-3'}`}>
      <AlertIcon className="size-8 text-red-500" />
      {title ? <p className="text-sm font-medium text-slate-900">{title}</p> : null}
      <p className={`text-sm ${title ? 'text-slate-600' : 'text-slate-700'}`}>{message}</p>
      <Button variant="secondary" className={title ? 'mt-2' : undefined} onClick={onRetry}>
        Try Again
      </Button>
    </div>
  );
}
