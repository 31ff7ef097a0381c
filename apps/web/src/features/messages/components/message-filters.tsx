import {
  MESSAGE_CHIPS,
  MESSAGE_DIRECTION_LABELS,
  MESSAGE_STATUS_FILTERS,
  MESSAGE_STATUS_LABELS,
  type TCappedCount,
  type TListMessagesData,
  type TMessageChip,
} from '@sms/contracts/messages/list-messages';
import type { TMessageDirection, TMessageStatus } from '@sms/contracts/messages/message';
import { Button } from '../../../components/button.tsx';
import {
  FILTER_SELECT_CLASSES,
  SearchField,
  SearchFilterBar,
} from '../../../components/search-filter-bar.tsx';
import type { TCompanyOption } from '../../../lib/company-options.ts';

export type TMessageFilters = {
  chip: TMessageChip;
  direction: TMessageDirection | '';
  status: TMessageStatus | '';
  search: string;
  /** system_admin only; '' is every company. */
  companyId: string;
};

export const NO_MESSAGE_FILTERS: TMessageFilters = {
  chip: 'all',
  direction: '',
  status: '',
  search: '',
  companyId: '',
};

export function hasActiveFilters(filters: TMessageFilters) {
  return (
    filters.chip !== 'all' ||
    filters.direction !== '' ||
    filters.status !== '' ||
    filters.search.trim() !== '' ||
    filters.companyId !== ''
  );
}

const formatCount = (count: TCappedCount | undefined) =>
  count ? `${count.total.toLocaleString()}${count.exact ? '' : '+'}` : '…';

type TChipsProps = {
  value: TMessageChip;
  counts: TListMessagesData['counts'] | undefined;
  onChange: (chip: TMessageChip) => void;
};

/** The quick filter chips with their counts (spec section 2). */
export function MessageChips({ value, counts, onChange }: TChipsProps) {
  return (
    <fieldset className="flex flex-wrap gap-2 px-4 pt-4" aria-label="Quick filters">
      {MESSAGE_CHIPS.map((chip) => {
        const active = chip.id === value;
        return (
          <button
            key={chip.id}
            type="button"
            aria-pressed={active}
            onClick={() => onChange(chip.id)}
            className={`inline-flex items-center gap-2 rounded-full px-3 py-1.5 text-sm font-medium ring-1 ring-inset transition-colors ${
              active
                ? 'bg-indigo-600 text-white ring-indigo-600'
                : 'bg-white text-slate-700 ring-slate-300 hover:bg-slate-50'
            }`}
          >
            {chip.label}
            <span
              className={`rounded-full px-2 py-0.5 text-xs tabular-nums ${active ? 'bg-indigo-500 text-white' : 'bg-slate-100 text-slate-600'}`}
              data-testid={`chip-count-${chip.id}`}
            >
              {formatCount(counts?.[chip.id])}
            </span>
          </button>
        );
      })}
    </fieldset>
  );
}

type TFilterBarProps = {
  filters: TMessageFilters;
  onChange: (filters: TMessageFilters) => void;
  /** Given to a system_admin: pick one company. */
  companies?: TCompanyOption[];
};

export function MessageFilterBar({ filters, onChange, companies }: TFilterBarProps) {
  return (
    <SearchFilterBar>
      <SearchField
        look="flat"
        label="Search messages"
        placeholder="Search by number or content..."
        value={filters.search}
        onChange={(search) => onChange({ ...filters, search })}
      />
      {companies ? (
        <select
          aria-label="Filter by company"
          value={filters.companyId}
          onChange={(event) => onChange({ ...filters, companyId: event.target.value })}
          className={FILTER_SELECT_CLASSES}
        >
          <option value="">All Companies</option>
          {companies.map((company) => (
            <option key={company.id} value={company.id}>
              {company.name}
            </option>
          ))}
        </select>
      ) : null}
      <select
        aria-label="Filter by direction"
        value={filters.direction}
        onChange={(event) =>
          onChange({ ...filters, direction: event.target.value as TMessageFilters['direction'] })
        }
        className={FILTER_SELECT_CLASSES}
      >
        <option value="">All Directions</option>
        <option value="inbound">{MESSAGE_DIRECTION_LABELS.inbound}</option>
        <option value="outbound">{MESSAGE_DIRECTION_LABELS.outbound}</option>
      </select>
      <select
        aria-label="Filter by status"
        value={filters.status}
        // A status and a chip are both status filters: picking one lets go of the other.
        onChange={(event) =>
          onChange({ ...filters, status: event.target.value as TMessageFilters['status'], chip: 'all' })
        }
        className={FILTER_SELECT_CLASSES}
      >
        <option value="">All Statuses</option>
        {MESSAGE_STATUS_FILTERS.map((status) => (
          <option key={status} value={status}>
            {MESSAGE_STATUS_LABELS[status]}
          </option>
        ))}
      </select>
    </SearchFilterBar>
  );
}

type TActiveFiltersProps = {
  filters: TMessageFilters;
  companyName?: string;
  onClear: () => void;
};

/** Shown while any filter narrows the list; Clear All Filters puts every one back to all. */
export function ActiveFiltersBar({ filters, companyName, onClear }: TActiveFiltersProps) {
  if (!hasActiveFilters(filters)) return null;
  const chip = MESSAGE_CHIPS.find((entry) => entry.id === filters.chip);
  const pills = [
    filters.chip !== 'all' && chip ? `Quick filter: ${chip.label}` : null,
    filters.search.trim() ? `Search: "${filters.search.trim()}"` : null,
    filters.companyId ? `Company: ${companyName ?? filters.companyId}` : null,
    filters.direction ? `Direction: ${MESSAGE_DIRECTION_LABELS[filters.direction]}` : null,
    filters.status ? `Status: ${MESSAGE_STATUS_LABELS[filters.status]}` : null,
  ].filter((pill): pill is string => pill !== null);
  return (
    <section
      className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-indigo-50/50 px-4 py-2 text-sm"
      aria-label="Active Filters"
    >
      <span className="font-medium text-slate-700">Active Filters:</span>
      {pills.map((pill) => (
        <span
          key={pill}
          className="rounded-full bg-white px-2.5 py-0.5 text-xs text-slate-700 ring-1 ring-slate-200"
        >
          {pill}
        </span>
      ))}
      <Button variant="ghost" size="sm" className="ml-auto" onClick={onClear}>
        Clear All Filters
      </Button>
    </section>
  );
}
