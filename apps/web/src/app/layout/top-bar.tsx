import { effectiveRole } from '@sms/contracts/auth/roles';
import type { TUser } from '@sms/contracts/auth/user';
import { MenuIcon } from '../../components/icons.tsx';
import { GlobalSearch } from '../../features/search/components/global-search.tsx';
import { UserMenu } from './user-menu.tsx';

type TTopBarProps = {
  user: Pick<TUser, 'firstName' | 'email' | 'role'>;
  isMenuOpen: boolean;
  onOpenMenu: () => void;
  onSignOut: () => Promise<void>;
};

export function TopBar({ user, isMenuOpen, onOpenMenu, onSignOut }: TTopBarProps) {
  return (
    <header className="sticky top-0 z-20 flex h-16 shrink-0 items-center gap-3 border-b border-slate-200 bg-white/95 px-4 backdrop-blur sm:px-6 lg:px-8">
      <button
        type="button"
        onClick={onOpenMenu}
        aria-label="Open menu"
        aria-expanded={isMenuOpen}
        aria-controls="app-sidebar"
        className="-ml-1 rounded-md p-2 text-slate-600 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 lg:hidden"
      >
        <MenuIcon className="size-5" />
      </button>

      <GlobalSearch role={effectiveRole(user.role)} />

      <div className="ml-auto">
        <UserMenu user={user} onSignOut={onSignOut} />
      </div>
    </header>
  );
}
