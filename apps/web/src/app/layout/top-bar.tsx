import type { TUser } from '@sms/contracts/auth/user';
import { MenuIcon, SearchIcon } from '../../components/icons.tsx';
import { UserMenu } from './user-menu.tsx';

type TTopBarProps = {
  user: Pick<TUser, 'firstName' | 'email'>;
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

      <search className="flex-1 sm:max-w-md">
        {/* The search's behaviour is not specified yet: the box is there, submitting does nothing. */}
        <form className="relative" onSubmit={(event) => event.preventDefault()}>
          <label htmlFor="global-search" className="sr-only">
            Search
          </label>
          <SearchIcon className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-slate-400" />
          <input
            id="global-search"
            type="search"
            placeholder="Search..."
            className="block w-full rounded-lg border-0 bg-slate-100 py-2 pl-9 pr-3 text-sm text-slate-900 placeholder:text-slate-400 focus:bg-white focus:outline-none focus:ring-2 focus:ring-indigo-600"
          />
        </form>
      </search>

      <div className="ml-auto">
        <UserMenu user={user} onSignOut={onSignOut} />
      </div>
    </header>
  );
}
