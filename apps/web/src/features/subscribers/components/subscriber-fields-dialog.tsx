import type { TSubscriber } from '@sms/contracts/subscribers/subscriber';
import {
  ATTRIBUTE_MAX_COUNT,
  SUGGESTED_ATTRIBUTES,
  ZSubscriberAttributes,
} from '@sms/contracts/templates/merge-fields';
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { FormActions } from '../../../components/form-actions.tsx';
import { INPUT_CLASSES } from '../../../components/form-field.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { useUpdateSubscriberAttributes } from '../api/update-subscriber-attributes.ts';

type TRow = { key: number; name: string; value: string };

/** The subscriber's fields, the suggested ones first (first_name, last_name, language), then its others. */
function rowsOf(attributes: Record<string, string>): TRow[] {
  const names = [
    ...SUGGESTED_ATTRIBUTES,
    ...Object.keys(attributes).filter((name) => !SUGGESTED_ATTRIBUTES.includes(name as never)),
  ];
  return names.map((name, key) => ({ key, name, value: attributes[name] ?? '' }));
}

/** Edits a subscriber's merge fields; a blank value removes the field (the API's rule, checked here first). */
export function SubscriberFieldsDialog({
  subscriber,
  onClose,
}: {
  subscriber: TSubscriber;
  onClose: () => void;
}) {
  const { showToast } = useToast();
  const save = useUpdateSubscriberAttributes();
  const [rows, setRows] = useState(() => rowsOf(subscriber.attributes));
  const [error, setError] = useState<string | null>(null);

  const setRow = (key: number, change: Partial<TRow>) =>
    setRows((current) => current.map((row) => (row.key === key ? { ...row, ...change } : row)));
  const addRow = () =>
    setRows((current) => [
      ...current,
      { key: Math.max(0, ...current.map((row) => row.key)) + 1, name: '', value: '' },
    ]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const entries = rows.filter((row) => row.name.trim() !== '' || row.value.trim() !== '');
    const parsed = ZSubscriberAttributes.safeParse(
      Object.fromEntries(entries.map((row) => [row.name.trim(), row.value])),
    );
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'Check the fields');
    setError(null);
    try {
      const result = await save.mutateAsync({ id: subscriber.id, attributes: parsed.data });
      showToast(result.message, 'success');
      onClose();
    } catch (failure) {
      setError(getServerMessage(failure) ?? 'Failed to save the fields. Please try again.');
    }
  };

  return (
    <ModalDialog title={`Fields of ${subscriber.msisdn}`} onClose={onClose}>
      <form onSubmit={submit} noValidate className="space-y-4" aria-label="Subscriber fields">
        <p className="text-sm text-slate-600">
          Merge fields for personalised messages:{' '}
          <code className="font-mono text-indigo-700">{'{{first_name}}'}</code> in a message becomes this
          subscriber's first name. Leave a value blank to remove it.
        </p>
        {error ? (
          <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
            {error}
          </p>
        ) : null}
        <div className="space-y-2">
          {rows.map((row) => (
            <div key={row.key} className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-2">
              <input
                aria-label="Field name"
                className={`${INPUT_CLASSES} font-mono`}
                value={row.name}
                placeholder="field_name"
                onChange={(event) => setRow(row.key, { name: event.target.value })}
              />
              <input
                aria-label={row.name ? `Value of ${row.name}` : 'Field value'}
                className={INPUT_CLASSES}
                value={row.value}
                onChange={(event) => setRow(row.key, { value: event.target.value })}
              />
            </div>
          ))}
        </div>
        <Button variant="ghost" size="sm" onClick={addRow} disabled={rows.length >= ATTRIBUTE_MAX_COUNT}>
          Add field
        </Button>
        <FormActions onCancel={onClose} isPending={save.isPending} submitLabel="Save Fields" />
      </form>
    </ModalDialog>
  );
}
