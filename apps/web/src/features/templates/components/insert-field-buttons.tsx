import { SUGGESTED_ATTRIBUTES } from '@sms/contracts/templates/merge-fields';

/** One click adds a placeholder (with a fallback for the first name) where the text ends. */
export function InsertFieldButtons({ onInsert }: { onInsert: (placeholder: string) => void }) {
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs text-slate-500">
      <span>Insert field:</span>
      {SUGGESTED_ATTRIBUTES.map((name) => (
        <button
          key={name}
          type="button"
          onClick={() => onInsert(name === 'first_name' ? '{{first_name|friend}}' : `{{${name}}}`)}
          className="rounded-md bg-slate-100 px-2 py-0.5 font-mono text-slate-700 hover:bg-indigo-50 hover:text-indigo-700"
        >
          {name}
        </button>
      ))}
    </div>
  );
}
