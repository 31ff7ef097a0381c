import { Button } from './button.tsx';
import { ModalDialog } from './modal-dialog.tsx';

type TConfirmDialogProps = {
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  isPending?: boolean;
  tone?: 'danger' | 'primary';
};

export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
  isPending = false,
  tone = 'danger',
}: TConfirmDialogProps) {
  return (
    <ModalDialog
      title={title}
      onClose={onCancel}
      widthClass="max-w-md"
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} disabled={isPending}>
            Cancel
          </Button>
          <Button variant={tone} onClick={onConfirm} disabled={isPending}>
            {isPending ? 'Working...' : confirmLabel}
          </Button>
        </>
      }
    >
      <p className="text-sm text-slate-700">{message}</p>
    </ModalDialog>
  );
}
