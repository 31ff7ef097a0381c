import { countOf } from '../lib/plural.ts';
import { Button } from './button.tsx';

type TPaginationBarProps = {
  currentPage: number;
  totalPages: number;
  totalItems: number;
  onPageChange: (page: number) => void;
  /** The items counted, plural: "subscribers". */
  itemLabel?: string;
  /** The same for exactly one: "subscriber" (without it the plural is kept). */
  itemLabelOne?: string;
};

export function PaginationBar({
  currentPage,
  totalPages,
  totalItems,
  onPageChange,
  itemLabel = 'items',
  itemLabelOne,
}: TPaginationBarProps) {
  return (
    <nav
      aria-label="Pagination"
      className="flex items-center justify-between gap-4 border-t border-slate-200 px-4 py-3 text-sm text-slate-600"
    >
      <span>
        Page {currentPage.toLocaleString()} of {totalPages.toLocaleString()} ·{' '}
        {countOf(totalItems, itemLabelOne ?? itemLabel, itemLabel)}
      </span>
      <div className="flex gap-2">
        <Button
          variant="secondary"
          size="sm"
          disabled={currentPage <= 1}
          onClick={() => onPageChange(currentPage - 1)}
        >
          Previous
        </Button>
        <Button
          variant="secondary"
          size="sm"
          disabled={currentPage >= totalPages}
          onClick={() => onPageChange(currentPage + 1)}
        >
          Next
        </Button>
      </div>
    </nav>
  );
}
