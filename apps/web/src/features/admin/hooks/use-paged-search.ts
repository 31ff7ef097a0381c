import { useDeferredValue, useState } from 'react';

/** A table's page, search text and one filter; a new search or filter starts again at page 1. */
export function usePagedSearch<TFilter extends string>(initialFilter: TFilter) {
  const [page, setPage] = useState(1);
  const [search, setSearchText] = useState('');
  const [filter, setFilterValue] = useState<TFilter>(initialFilter);
  const searchTerm = useDeferredValue(search.trim());

  function setSearch(value: string) {
    setSearchText(value);
    setPage(1);
  }

  function setFilter(value: TFilter) {
    setFilterValue(value);
    setPage(1);
  }

  return { page, setPage, search, setSearch, searchTerm, filter, setFilter };
}
