import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Acts on a search parameter another page put in the link (the top bar's search opens items this
 * way: /services?edit=4, /subscribers?search=+2547..., /messages?open=31), then removes it from
 * the address, so closing what it opened does not open it again. `act` returns false while the
 * page cannot act yet (its data still loading): it is asked again on the next render.
 */
export function useSearchParamAction(name: string, act: (value: string) => boolean) {
  const [params, setParams] = useSearchParams();
  const value = params.get(name);
  const actRef = useRef(act);
  actRef.current = act;
  // The address changes a moment after the removal is asked for: act once per value meanwhile.
  const handled = useRef<string | null>(null);

  useEffect(() => {
    if (value === null) {
      handled.current = null;
      return;
    }
    if (handled.current === value || !actRef.current(value)) return;
    handled.current = value;
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(name);
        return next;
      },
      { replace: true },
    );
  });
}
