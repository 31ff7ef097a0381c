import { Link } from 'react-router';
import { Button } from './button.tsx';
import { AlertIcon } from './icons.tsx';

type TErrorScreenProps = {
  error?: unknown;
  onRetry: () => void;
};

export function ErrorScreen({ error, onRetry }: TErrorScreenProps) {
  const detail = import.meta.env.DEV && error instanceof Error ? error.message : null;

  return (
    <div role="alert" className="flex min-h-[60vh] items-center justify-center px-4 py-12">
      <div className="w-full max-w-md rounded-2xl border border-slate-200 bg-white p-8 text-center shadow-sm">
        <div className="mx-auto flex size-12 items-center justify-center rounded-full bg-amber-50 text-amber-600">
          <AlertIcon className="size-6" />
        </div>
        <h1 className="mt-4 text-xl font-semibold text-slate-900">Something went wrong</h1>
        <p className="mt-2 text-sm text-slate-600">
          An unexpected error occurred while showing this page. You can try again or reload the page.
        </p>
        {detail ? (
          <pre className="mt-4 overflow-x-auto rounded-lg bg-slate-50 p-3 text-left text-xs text-red-700">
            {detail}
          </pre>
        ) : null}
        <div className="mt-6 flex flex-wrap items-center justify-center gap-3">
          <Button onClick={onRetry}>Try Again</Button>
          <Button variant="secondary" onClick={() => window.location.reload()}>
            Refresh Page
          </Button>
        </div>
        <Link
          to="/dashboard"
          className="mt-4 inline-block rounded text-sm font-medium text-indigo-600 hover:text-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          Go to Dashboard
        </Link>
      </div>
    </div>
  );
}
