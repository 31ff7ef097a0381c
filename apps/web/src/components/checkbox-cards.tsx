import type { ReactNode } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

export type TCheckboxCard = { value: string; title: ReactNode; detail: ReactNode };

/** A required set of choices (a key's scopes, an endpoint's events), each a card with a line under it. */
export function CheckboxCards({
  legend,
  cards,
  field,
  error,
  twoColumns = false,
}: {
  legend: string;
  cards: TCheckboxCard[];
  field: UseFormRegisterReturn;
  error: string | undefined;
  twoColumns?: boolean;
}) {
  return (
    <fieldset>
      <legend className="block text-sm font-medium text-slate-700">
        {legend}
        <span className="text-red-600"> *</span>
      </legend>
      <div className={twoColumns ? 'mt-2 grid gap-2 sm:grid-cols-2' : 'mt-2 space-y-2'}>
        {cards.map((card) => (
          <label
            key={card.value}
            className="flex cursor-pointer items-start gap-3 rounded-lg p-2 ring-1 ring-inset ring-slate-200 hover:bg-slate-50"
          >
            <input
              type="checkbox"
              value={card.value}
              className="mt-0.5 size-4 rounded border-slate-300 text-indigo-600"
              {...field}
            />
            <span>
              <span className="block text-sm font-medium text-slate-900">{card.title}</span>
              <span className="block text-xs text-slate-500">{card.detail}</span>
            </span>
          </label>
        ))}
      </div>
      {error ? (
        <p className="mt-1 text-xs text-red-600" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
