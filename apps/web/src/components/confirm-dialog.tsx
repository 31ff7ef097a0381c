import { Button } from './button.tsx';
import { ModalDialog } from './modal-dialog.tsx';

type TConfirmDialogProps = {
  title: string;
  message: string;
  confirmLabel: string;
  /** The button that backs out; 'Cancel' unless that reads oddly beside the action ("Cancel Message"). */
  cancelLabel?: string;
  /** The action's label while it runs. */
  pendingLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  isPending?: boolean;
  tone?: 'danger' | 'primary';
};

export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  cancelLabel = 'Cancel',
  pendingLabel = 'Working...',
  onConfirm,
  onCancel,
  isPending = false,
  tone = 'danger',
}: TConfirmDialogProps) {
  return (
    <ModalDialog
      title={title}
      onClose={onCancel}
      role="alertdialog"
      widthClass="max-w-md"
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} disabled={isPending}>
            {cancelLabel}
          </Button>
          <Button variant={tone} onClick={onConfirm} disabled={isPending}>
            {isPending ? pendingLabel : confirmLabel}
          </Button>
        </>
      }
    >
      <p className="text-sm text-slate-700">{message}</p>
    </ModalDialog>
  );
}
