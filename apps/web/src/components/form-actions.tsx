import type { ComponentProps } from 'react';
import { Button } from './button.tsx';

type TFormActionsProps = {
  onCancel: () => void;
  isPending: boolean;
  submitLabel: string;
  pendingLabel?: string;
  submitDisabled?: boolean;
  submitVariant?: ComponentProps<typeof Button>['variant'];
};

/** Cancel and submit at the foot of a form; both wait while the form is being sent. */
export function FormActions({
  onCancel,
  isPending,
  submitLabel,
  pendingLabel = 'Saving...',
  submitDisabled = false,
  submitVariant,
}: TFormActionsProps) {
  return (
    <div className="flex justify-end gap-2 pt-2">
      <Button variant="secondary" onClick={onCancel} disabled={isPending}>
        Cancel
      </Button>
      <Button type="submit" variant={submitVariant} disabled={submitDisabled || isPending}>
        {isPending ? pendingLabel : submitLabel}
      </Button>
    </div>
  );
}
