import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

type TUpdateOptions = { replace?: boolean };

/**
 * A page's filters and page number kept in the address, so a reload or a shared link shows the
 * same view and Back steps through the changes. A value equal to its default is left out of the
 * address (a plain /messages is the unfiltered first page).
 */
export function useUrlState<K extends string>(defaults: Record<K, string>) {
  const [params, setParams] = useSearchParams();
  const defaultsRef = useRef(defaults);
  const values = {} as Record<K, string>;
  for (const key of Object.keys(defaults) as K[]) values[key] = params.get(key) ?? defaults[key];

  const update = useCallback(
    (changes: Partial<Record<K, string>>, options: TUpdateOptions = {}) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(changes) as [K, string][]) {
            if (value === defaultsRef.current[key] || value === '') next.delete(key);
            else next.set(key, value);
          }
          return next;
        },
        // Rendered at once, not as a transition (the router's default): a busy page could still be
        // rendering one change when the next (another filter) comes, which would then start from
        // the address before the first and undo it.
        { replace: options.replace, flushSync: true },
      );
    },
    [setParams],
  );

  return [values, update] as const;
}

/** A positive page number from the address; anything else is page 1. */
export function pageFrom(value: string) {
  const page = Number(value);
  return Number.isInteger(page) && page > 0 ? page : 1;
}

/**
 * A search box whose text reaches the address once the person stops typing for a moment
 * (replacing the entry: one Back undoes the search, not each letter), and that follows the
 * address when it changes on its own (Back, a link).
 */
export function useUrlSearchText(urlValue: string, commit: (text: string) => void, delay: number) {
  const [text, setText] = useState(urlValue);
  const committed = useRef(urlValue);
  const commitRef = useRef(commit);
  commitRef.current = commit;

  useEffect(() => {
    if (urlValue === committed.current) return;
    committed.current = urlValue;
    setText(urlValue);
  }, [urlValue]);

  useEffect(() => {
    const trimmed = text.trim();
    if (trimmed === committed.current) return;
    const timer = setTimeout(() => {
      committed.current = trimmed;
      commitRef.current(trimmed);
    }, delay);
    return () => clearTimeout(timer);
  }, [text, delay]);

  return [text, setText] as const;
}
