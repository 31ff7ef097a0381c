import { parseTemplate } from '@sms/contracts/templates/merge-fields';

/** A text with its placeholders shown as chips: {{first_name|friend}} reads "first_name · friend". */
export function MergeText({ text }: { text: string }) {
  const { segments } = parseTemplate(text);
  return (
    <span className="whitespace-pre-wrap [overflow-wrap:anywhere]">
      {segments.map((segment, index) =>
        typeof segment === 'string' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one text, in its order.
          <span key={index}>{segment}</span>
        ) : (
          <span
            // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one text, in its order.
            key={index}
            className="mx-0.5 inline-flex items-center rounded bg-indigo-50 px-1.5 py-0.5 font-mono text-xs text-indigo-700 ring-1 ring-indigo-200 ring-inset"
            title={segment.fallback ? `${segment.name}, else "${segment.fallback}"` : segment.name}
          >
            {segment.name}
            {segment.fallback ? <span className="text-indigo-400"> · {segment.fallback}</span> : null}
          </span>
        ),
      )}
    </span>
  );
}
