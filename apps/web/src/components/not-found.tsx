import { Link } from 'react-router';
import { useDocumentTitle } from '../lib/use-document-title.ts';
import { buttonStyles } from './button.tsx';

export function NotFound() {
  useDocumentTitle('Page Not Found');
  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 px-4 py-12">
      <div className="text-center">
        <p className="text-5xl font-bold tracking-tight text-indigo-600">404</p>
        <h1 className="mt-4 text-2xl font-semibold text-slate-900">Page Not Found</h1>
        <p className="mt-2 text-sm text-slate-600">The page you're looking for doesn't exist.</p>
        <Link to="/dashboard" className={`${buttonStyles('primary')} mt-6`}>
          Go to Dashboard
        </Link>
      </div>
    </main>
  );
}
