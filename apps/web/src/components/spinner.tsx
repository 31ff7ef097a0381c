type TSpinnerProps = {
  label?: string;
  className?: string;
};

export function Spinner({ label = 'Loading', className = 'size-8' }: TSpinnerProps) {
  return (
    <span role="status" className="inline-flex items-center justify-center">
      <svg
        className={`${className} animate-spin text-indigo-600`}
        viewBox="0 0 24 24"
        fill="none"
        aria-hidden="true"
      >
        <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="3" className="opacity-20" />
        <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
      </svg>
      <span className="sr-only">{label}</span>
    </span>
  );
}

export function FullPageSpinner({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="flex min-h-screen items-center justify-center bg-slate-50">
      <Spinner label={label} className="size-10" />
    </div>
  );
}
