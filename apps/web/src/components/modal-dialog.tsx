import * as Dialog from '@radix-ui/react-dialog';
import { type ReactNode, useState } from 'react';
import { CloseIcon } from './icons.tsx';

type TModalDialogProps = {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  /** Tailwind max-width class of the panel. */
  widthClass?: string;
  /**
   * alertdialog: a confirmation that interrupts (a click outside does not dismiss it, Escape and
   * Cancel do), as WAI-ARIA's alert dialog pattern asks.
   */
  role?: 'dialog' | 'alertdialog';
};

/**
 * A centred dialog that scrolls inside 90% of the viewport height. Radix's Dialog does the
 * behaviour a dialog owes: focus moves in and stays in while it is open, returns to what opened it
 * when it closes, and Escape or a click outside closes only the top one of nested dialogs.
 * It is shown while rendered: the parent renders it to open it and stops to close it; what had
 * focus when it opened gets it back.
 */
export function ModalDialog({
  title,
  onClose,
  children,
  footer,
  widthClass = 'max-w-lg',
  role = 'dialog',
}: TModalDialogProps) {
  const alert = role === 'alertdialog';
  // Opened by state, not by a Radix Trigger: remember what had focus, to give it back on close.
  const [opener] = useState(() =>
    document.activeElement instanceof HTMLElement ? document.activeElement : null,
  );
  return (
    <Dialog.Root
      open
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <div className="pointer-events-none fixed inset-0 z-50 flex items-center justify-center p-4">
          <Dialog.Content
            role={role}
            aria-describedby={undefined}
            onCloseAutoFocus={(event) => {
              event.preventDefault();
              if (opener?.isConnected) opener.focus();
            }}
            onPointerDownOutside={alert ? (event) => event.preventDefault() : undefined}
            onInteractOutside={alert ? (event) => event.preventDefault() : undefined}
            className={`pointer-events-auto relative flex max-h-[90vh] w-full ${widthClass} flex-col rounded-xl bg-white shadow-xl focus:outline-none`}
          >
            <div className="flex items-start justify-between gap-4 border-b border-slate-200 px-6 py-4">
              <Dialog.Title className="text-lg font-semibold text-slate-900">{title}</Dialog.Title>
              <Dialog.Close
                aria-label="Close"
                className="rounded-md p-1 text-slate-400 hover:bg-slate-100 hover:text-slate-600"
              >
                <CloseIcon className="size-5" />
              </Dialog.Close>
            </div>
            <div className="overflow-y-auto px-6 py-4">{children}</div>
            {footer ? (
              <div className="flex justify-end gap-2 border-t border-slate-200 px-6 py-3">{footer}</div>
            ) : null}
          </Dialog.Content>
        </div>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
