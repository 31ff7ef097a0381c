import type { TRole } from '@sms/contracts/auth/roles';
import {
  SEARCH_DEBOUNCE_MS,
  SEARCH_KIND_LABELS,
  SEARCH_MIN_LENGTH,
  SEARCH_TARGETS,
  SEARCH_TEXTS,
  searchHintFor,
  searchKindsFor,
  type TGlobalSearchData,
  type TSearchKind,
} from '@sms/contracts/search/global-search';
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { SearchIcon } from '../../../components/icons.tsx';
import { useGlobalSearch } from '../api/global-search.ts';
import { useDebouncedValue } from '../hooks/use-debounced-value.ts';
import { useFocusShortcut } from '../hooks/use-focus-shortcut.ts';

type TOption = { kind: TSearchKind; key: string; title: string; detail: string; href: string };

const shortDate = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });

/** Every hit as one option, in the order the groups are shown. */
export function toOptions(data: TGlobalSearchData | undefined, showCompany: boolean): TOption[] {
  if (!data) return [];
  const company = (name: string) => (showCompany ? ` · ${name}` : '');
  return [
    ...data.services.map((hit) => ({
      kind: 'services' as const,
      key: `service-${hit.id}`,
      title: hit.name,
      detail: `${hit.shortcode} · ${hit.keyword}${company(hit.companyName)}`,
      href: SEARCH_TARGETS.services(hit),
    })),
    ...data.subscribers.map((hit) => ({
      kind: 'subscribers' as const,
      key: `subscriber-${hit.id}`,
      title: hit.msisdn,
      detail: `${hit.status}${company(hit.companyName)}`,
      href: SEARCH_TARGETS.subscribers(hit),
    })),
    ...data.messages.map((hit) => ({
      kind: 'messages' as const,
      key: `message-${hit.id}`,
      title: hit.snippet,
      detail: `${hit.direction} · ${hit.status} · ${shortDate(hit.createdAt)}${company(hit.companyName)}`,
      href: SEARCH_TARGETS.messages(hit),
    })),
    ...data.companies.map((hit) => ({
      kind: 'companies' as const,
      key: `company-${hit.id}`,
      title: hit.name,
      detail: hit.status,
      href: SEARCH_TARGETS.companies(hit),
    })),
    ...data.users.map((hit) => ({
      kind: 'users' as const,
      key: `user-${hit.id}`,
      title: hit.name,
      detail: `${hit.email} · ${hit.role.replaceAll('_', ' ')}${hit.companyName ? ` · ${hit.companyName}` : ''}`,
      href: SEARCH_TARGETS.users(hit),
    })),
  ];
}

/**
 * The top bar's search: services, subscribers and messages the signed-in user may open, grouped
 * by kind as they type. Arrows move, Enter opens, Escape closes; '/' or Ctrl-K focuses it.
 */
export function GlobalSearch({ role }: { role: TRole }) {
  const navigate = useNavigate();
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [activeIndex, setActiveIndex] = useState(-1);
  useFocusShortcut(inputRef);

  const kinds = searchKindsFor(role);
  const term = useDebouncedValue(text.trim(), SEARCH_DEBOUNCE_MS);
  const searchable = kinds.length > 0 && term.length >= SEARCH_MIN_LENGTH;
  const search = useGlobalSearch(term, searchable);
  const current = searchable && search.data?.q === term ? search.data : undefined;
  // Shown results may lag the keyboard by the debounce; Enter only takes results for the text as typed.
  const fresh = current !== undefined && term === text.trim();
  const options = useMemo(() => toOptions(current, role === 'system_admin'), [current, role]);
  const optionId = (index: number) => `${listId}-option-${index}`;
  const hintId = `${listId}-hint`;
  const hint = searchHintFor(kinds);
  const [enterPending, setEnterPending] = useState(false);

  const choose = (option: TOption | undefined) => {
    setEnterPending(false);
    if (!option) return;
    setOpen(false);
    setText('');
    setActiveIndex(-1);
    inputRef.current?.blur();
    navigate(option.href);
  };

  useEffect(() => {
    if (!enterPending || !fresh) return;
    if (options.length > 0) choose(options[0]);
    else setEnterPending(false);
  });

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      if (open && text) setOpen(false);
      else {
        setText('');
        inputRef.current?.blur();
      }
      return;
    }
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      if (options.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActiveIndex((index) => {
        if (index < 0) return step > 0 ? 0 : options.length - 1;
        return (index + step + options.length) % options.length;
      });
      return;
    }
    if (event.key === 'Enter') {
      event.preventDefault();
      // Typed and pressed Enter before the results for that text came: open the first one when they do.
      if (!fresh) setEnterPending(kinds.length > 0 && text.trim().length >= SEARCH_MIN_LENGTH);
      else choose(options[activeIndex >= 0 ? activeIndex : 0]);
    }
  };

  // Opens on focus: the hint says what the box finds before anything is typed.
  const showPanel = open;
  const pending = searchable && (search.isFetching || term !== text.trim()) && !current;

  return (
    <search className="relative flex-1 sm:max-w-md">
      <form className="relative" onSubmit={(event) => event.preventDefault()}>
        <label htmlFor="global-search" className="sr-only">
          Search
        </label>
        <SearchIcon className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-slate-400" />
        <input
          ref={inputRef}
          id="global-search"
          type="search"
          role="combobox"
          autoComplete="off"
          aria-expanded={showPanel}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-describedby={hintId}
          title={hint}
          readOnly={kinds.length === 0}
          aria-activedescendant={showPanel && activeIndex >= 0 ? optionId(activeIndex) : undefined}
          placeholder={SEARCH_TEXTS.placeholder}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setOpen(true);
            setActiveIndex(-1);
            setEnterPending(false);
          }}
          onFocus={() => setOpen(true)}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
          className="block w-full rounded-lg border-0 bg-slate-100 py-2 pl-9 pr-12 text-sm text-slate-900 placeholder:text-slate-400 focus:bg-white focus:outline-none focus:ring-2 focus:ring-indigo-600"
        />
        {text || kinds.length === 0 ? null : (
          <kbd className="pointer-events-none absolute right-3 top-1/2 hidden -translate-y-1/2 rounded border border-slate-300 px-1.5 text-[10px] font-medium text-slate-500 sm:block">
            /
          </kbd>
        )}
        {/* What the box can find, said before anything is typed (a role that finds nothing is told so at once). */}
        <span id={hintId} className="sr-only">
          {hint}
        </span>
        {kinds.length === 0 ? (
          <span
            className="pointer-events-none absolute right-3 top-1/2 -translate-y-1/2 text-xs text-slate-400"
            aria-hidden="true"
            data-testid="search-unavailable"
          >
            Not available for your role
          </span>
        ) : null}
      </form>

      {showPanel ? (
        <div className="absolute inset-x-0 top-full z-40 mt-2 max-h-[70vh] overflow-y-auto rounded-xl border border-slate-200 bg-white py-2 shadow-lg">
          <div id={listId} role="listbox" aria-label="Search results">
            {kinds.map((kind) => {
              const group = options
                .map((option, index) => ({ option, index }))
                .filter(({ option }) => option.kind === kind);
              if (group.length === 0) return null;
              return (
                <div key={kind}>
                  <p
                    className="px-4 pb-1 pt-2 text-xs font-semibold uppercase tracking-wide text-slate-500"
                    aria-hidden="true"
                  >
                    {SEARCH_KIND_LABELS[kind]}
                  </p>
                  {/* biome-ignore lint/a11y/useSemanticElements: a group of options inside a listbox, not a form fieldset */}
                  <div role="group" aria-label={SEARCH_KIND_LABELS[kind]}>
                    {group.map(({ option, index }) => (
                      // biome-ignore lint/a11y/useKeyWithClickEvents: the input owns the keys (combobox pattern): arrows and Enter
                      <div
                        key={option.key}
                        id={optionId(index)}
                        role="option"
                        tabIndex={-1}
                        aria-selected={index === activeIndex}
                        // The input keeps the focus (combobox pattern): a click must not blur it first.
                        onMouseDown={(event) => event.preventDefault()}
                        onClick={() => choose(option)}
                        onMouseMove={() => setActiveIndex(index)}
                        className={`cursor-pointer px-4 py-2 ${index === activeIndex ? 'bg-indigo-50' : ''}`}
                      >
                        <span className="block truncate text-sm text-slate-900">{option.title}</span>
                        <span className="block truncate text-xs text-slate-500">{option.detail}</span>
                      </div>
                    ))}
                  </div>
                </div>
              );
            })}
          </div>
          <SearchStatus
            hint={hint}
            hasKinds={kinds.length > 0}
            text={text.trim()}
            pending={pending}
            failed={search.isError && !current}
            empty={current !== undefined && options.length === 0}
          />
        </div>
      ) : null}
    </search>
  );
}

type TSearchStatusProps = {
  hint: string;
  hasKinds: boolean;
  text: string;
  pending: boolean;
  failed: boolean;
  empty: boolean;
};

function SearchStatus({ hint, hasKinds, text, pending, failed, empty }: TSearchStatusProps) {
  let message: string | null = null;
  if (!hasKinds) message = SEARCH_TEXTS.unavailable;
  else if (text.length === 0) message = hint;
  else if (text.length < SEARCH_MIN_LENGTH) message = SEARCH_TEXTS.typeMore;
  else if (failed) message = SEARCH_TEXTS.failed;
  else if (pending) message = SEARCH_TEXTS.searching;
  else if (empty) message = SEARCH_TEXTS.noResults(text);
  if (!message) return null;
  return (
    <p role="status" className="px-4 py-2 text-sm text-slate-500">
      {message}
    </p>
  );
}
