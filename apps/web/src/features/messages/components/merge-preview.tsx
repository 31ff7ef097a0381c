import type { TMergePreviewRecipient } from '@sms/contracts/messages/merge-preview';
import { MESSAGE_MAX_LENGTH } from '@sms/contracts/messages/message';
import { renderTemplate, type TTemplate } from '@sms/contracts/templates/merge-fields';

/** The text as three real recipients of the chosen services will get it (the engine's own renderer). */
export function MergePreview({
  template,
  samples,
  servicesChosen,
  loading,
}: {
  template: TTemplate;
  samples: TMergePreviewRecipient[] | null;
  servicesChosen: boolean;
  loading: boolean;
}) {
  return (
    <section
      className="rounded-lg border border-slate-200 bg-slate-50 p-3"
      aria-label="Preview"
      data-testid="merge-preview"
    >
      <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Preview</h3>
      {!servicesChosen ? (
        <p className="mt-1 text-sm text-slate-500">
          Select services to see the text as their subscribers will get it.
        </p>
      ) : !samples ? (
        <p className="mt-1 text-sm text-slate-500">{loading ? 'Loading...' : 'No recipients to preview'}</p>
      ) : samples.length === 0 ? (
        <p className="mt-1 text-sm text-slate-500">No recipients to preview</p>
      ) : (
        <ul className="mt-2 space-y-2">
          {samples.map((sample) => {
            const text = renderTemplate(template, sample.attributes);
            return (
              <li key={sample.id} className="text-sm">
                <div className="flex items-center justify-between gap-2 text-xs text-slate-500">
                  <span className="font-mono">{sample.msisdn}</span>
                  <span className={`tabular-nums ${text.length > MESSAGE_MAX_LENGTH ? 'text-red-600' : ''}`}>
                    {text.length}/{MESSAGE_MAX_LENGTH}
                  </span>
                </div>
                <p className="mt-0.5 rounded-md bg-white px-2 py-1 whitespace-pre-wrap text-slate-800 ring-1 ring-slate-200 [overflow-wrap:anywhere]">
                  {text}
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
