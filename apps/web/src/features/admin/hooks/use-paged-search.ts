import { useDeferredValue } from 'react';
import { pageFrom, useUrlSearchText, useUrlState } from '../../../lib/use-url-state.ts';

const SEARCH_DELAY_MS = 250;

/**
 * A table's page, search text and one filter (`filterParam` in the address), kept in the address
 * beside the Admin Panel's tab; a new search or filter starts again at page 1.
 */
export function usePagedSearch<TFilter extends string>(filterParam: string, initialFilter: TFilter) {
  const [url, setUrl] = useUrlState({ search: '', [filterParam]: initialFilter, page: '1' } as Record<
    string,
    string
  >);
  const [search, setSearchText] = useUrlSearchText(
    url.search,
    (text) => setUrl({ search: text, page: '1' }, { replace: true }),
    SEARCH_DELAY_MS,
  );
  const searchTerm = useDeferredValue(url.search.trim());

  return {
    page: pageFrom(url.page),
    setPage: (page: number) => setUrl({ page: String(page) }),
    search,
    setSearch: setSearchText,
    searchTerm,
    filter: url[filterParam] as TFilter,
    setFilter: (value: TFilter) => setUrl({ [filterParam]: value, page: '1' }),
  };
}
