import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { AlertIcon, CheckCircleIcon, CloseIcon, InfoIcon, XCircleIcon } from '../icons.tsx';

export const DEFAULT_TOAST_DURATION = 5000;

export type TToastType = 'success' | 'error' | 'warning' | 'info';

export type TToast = {
  id: string;
  message: string;
  type: TToastType;
  /** Milliseconds before it closes by itself; 0 or less keeps it until dismissed. */
  duration: number;
};

type TToastContext = {
  toasts: TToast[];
  showToast: (message: string, type?: TToastType, duration?: number) => string;
  dismissToast: (id: string) => void;
};

const ToastContext = createContext<TToastContext | null>(null);

let nextToastId = 0;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<TToast[]>([]);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  const dismissToast = useCallback((id: string) => {
    const timer = timers.current.get(id);
    if (timer) clearTimeout(timer);
    timers.current.delete(id);
    setToasts((current) => current.filter((toast) => toast.id !== id));
  }, []);

  const showToast = useCallback(
    (message: string, type: TToastType = 'info', duration = DEFAULT_TOAST_DURATION) => {
      nextToastId += 1;
      const id = `toast-${nextToastId}`;
      setToasts((current) => [...current, { id, message, type, duration }]);
      if (duration > 0)
        timers.current.set(
          id,
          setTimeout(() => dismissToast(id), duration),
        );
      return id;
    },
    [dismissToast],
  );

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    };
  }, []);

  const value = useMemo(() => ({ toasts, showToast, dismissToast }), [toasts, showToast, dismissToast]);

  return (
    <ToastContext value={value}>
      {children}
      <ToastViewport toasts={toasts} onDismiss={dismissToast} />
    </ToastContext>
  );
}

export function useToast() {
  const context = useContext(ToastContext);
  if (!context) throw new Error('useToast must be used inside ToastProvider');
  return context;
}

const TOAST_STYLES: Record<TToastType, { box: string; icon: string; Icon: typeof InfoIcon }> = {
  success: { box: 'border-emerald-200', icon: 'text-emerald-600', Icon: CheckCircleIcon },
  error: { box: 'border-red-200', icon: 'text-red-600', Icon: XCircleIcon },
  warning: { box: 'border-amber-200', icon: 'text-amber-500', Icon: AlertIcon },
  info: { box: 'border-sky-200', icon: 'text-sky-600', Icon: InfoIcon },
};

function ToastViewport({ toasts, onDismiss }: { toasts: TToast[]; onDismiss: (id: string) => void }) {
  return (
    <section
      aria-label="Notifications"
      className="pointer-events-none fixed inset-x-0 top-0 z-50 flex flex-col items-center gap-2 p-4 sm:items-end"
    >
      {toasts.map((toast) => {
        const style = TOAST_STYLES[toast.type];
        return (
          <div
            key={toast.id}
            role={toast.type === 'error' ? 'alert' : 'status'}
            className={`pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-xl border bg-white p-4 shadow-lg ${style.box}`}
          >
            <style.Icon className={`mt-0.5 size-5 shrink-0 ${style.icon}`} />
            <p className="flex-1 text-sm text-slate-800">{toast.message}</p>
            <button
              type="button"
              onClick={() => onDismiss(toast.id)}
              className="rounded-md p-0.5 text-slate-400 hover:text-slate-600 focus-visible:outline-2 focus-visible:outline-indigo-600"
              aria-label="Dismiss notification"
            >
              <CloseIcon className="size-4" />
            </button>
          </div>
        );
      })}
    </section>
  );
}
