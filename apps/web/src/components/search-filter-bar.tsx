import type { HTMLAttributes, ReactNode } from 'react';
import { INPUT_CLASSES } from './form-field.tsx';
import { SearchIcon } from './icons.tsx';

export const FILTER_SELECT_CLASSES =
  'rounded-lg border-0 py-2 pr-8 pl-3 text-sm ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-indigo-600';

// The admin tables search with the form input look; the services and subscribers pages with a flat one.
const SEARCH_CLASSES = {
  form: `${INPUT_CLASSES} pl-9`,
  flat: 'block w-full rounded-lg border-0 py-2 pr-3 pl-9 text-sm ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-indigo-600 focus:outline-none',
};

type TSearchFieldProps = {
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  look: keyof typeof SEARCH_CLASSES;
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode'];
};

export function SearchField({ label, placeholder, value, onChange, look, inputMode }: TSearchFieldProps) {
  return (
    <div className="relative flex-1">
      <SearchIcon className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" />
      <input
        type="search"
        aria-label={label}
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        inputMode={inputMode}
        className={SEARCH_CLASSES[look]}
      />
    </div>
  );
}

/** The row above a table: search first, then the filters and actions it is given. */
export function SearchFilterBar({ children }: { children: ReactNode }) {
  return (
    <div className="flex flex-col gap-3 border-b border-slate-200 p-4 sm:flex-row sm:items-center">
      {children}
    </div>
  );
}
