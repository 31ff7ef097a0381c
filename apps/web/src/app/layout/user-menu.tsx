import type { TUser } from '@sms/contracts/auth/user';
import { useEffect, useId, useRef, useState } from 'react';
import { ChevronDownIcon, LogoutIcon } from '../../components/icons.tsx';

type TUserMenuProps = {
  user: Pick<TUser, 'firstName' | 'email'>;
  onSignOut: () => Promise<void>;
};

export function UserMenu({ user, onSignOut }: TUserMenuProps) {
  const [isOpen, setIsOpen] = useState(false);
  const [isSigningOut, setIsSigningOut] = useState(false);
  const containerRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();

  useEffect(() => {
    if (!isOpen) return;
    function onPointerDown(event: PointerEvent) {
      if (!containerRef.current?.contains(event.target as Node)) setIsOpen(false);
    }
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== 'Escape') return;
      setIsOpen(false);
      buttonRef.current?.focus();
    }
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [isOpen]);

  async function signOut() {
    setIsSigningOut(true);
    try {
      await onSignOut();
    } finally {
      setIsSigningOut(false);
    }
  }

  return (
    <div ref={containerRef} className="relative">
      <button
        ref={buttonRef}
        type="button"
        onClick={() => setIsOpen((open) => !open)}
        aria-expanded={isOpen}
        aria-controls={panelId}
        aria-label={`User menu for ${user.firstName}`}
        className="flex items-center gap-2 rounded-lg p-1.5 text-sm text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <span
          className="flex size-8 items-center justify-center rounded-full bg-indigo-600 text-sm font-semibold text-white"
          aria-hidden="true"
        >
          {user.firstName.charAt(0).toUpperCase()}
        </span>
        <span className="hidden font-medium sm:inline">{user.firstName}</span>
        <ChevronDownIcon className="hidden size-4 text-slate-400 sm:inline" />
      </button>

      <div
        id={panelId}
        hidden={!isOpen}
        className="absolute right-0 z-30 mt-2 w-64 origin-top-right rounded-xl border border-slate-200 bg-white py-2 shadow-lg"
      >
        <div className="border-b border-slate-100 px-4 pb-3 pt-1">
          <p className="truncate text-sm font-medium text-slate-900">{user.firstName}</p>
          <p className="truncate text-sm text-slate-500">{user.email}</p>
        </div>
        <div className="px-2 pt-2">
          <button
            type="button"
            onClick={signOut}
            disabled={isSigningOut}
            className="flex w-full items-center gap-2 rounded-lg px-2 py-2 text-left text-sm text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600 disabled:opacity-60"
          >
            <LogoutIcon className="size-4 text-slate-400" />
            {isSigningOut ? 'Signing out...' : 'Sign out'}
          </button>
        </div>
      </div>
    </div>
  );
}
