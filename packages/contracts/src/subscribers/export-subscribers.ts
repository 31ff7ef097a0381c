import { ZSubscriberFilters } from './list-subscribers.ts';

/** GET /subscriptions/subscribers/export: text/csv, the same filters as the list, every matching row. */
export const ZExportSubscribersQuery = ZSubscriberFilters;
export const EXPORT_CSV_HEADER = ['phone_number', 'status', 'created_at', 'active_services'] as const;
/** A system_admin's export spans companies: the same columns, then the company's name. */
export const EXPORT_CSV_HEADER_WITH_COMPANY = [...EXPORT_CSV_HEADER, 'company'] as const;
/*
 * After these, one column per merge field the exported subscribers hold, named by the field, so an
 * export imports again with its fields. The export's own column names are therefore no field names
 * (templates/merge-fields.ts refuses them).
 */
