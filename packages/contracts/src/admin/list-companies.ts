import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZOptionalQueryText, ZPage, ZPageSize } from '../common/pagination.ts';
import { COMPANY_FILTER_STATUSES, COMPANY_PAGE_SIZE, COMPANY_STATUSES, ZCompany } from './company.ts';

export const ZListCompaniesQuery = z.object({
  page: ZPage,
  limit: ZPageSize(COMPANY_PAGE_SIZE),
  searchTerm: ZOptionalQueryText,
  status: z
    .union([z.enum(COMPANY_STATUSES), z.literal('')], {
      error: `status must be one of ${COMPANY_FILTER_STATUSES.join(', ')}`,
    })
    .optional()
    .transform((value) => (value ? value : undefined)),
});
/** What a client sends (the schema also accepts the query-string forms). */
export type TListCompaniesQuery = {
  page?: number;
  limit?: number;
  searchTerm?: string;
  status?: (typeof COMPANY_STATUSES)[number] | '';
};

/** Platform-wide figures for the four stat cards; counted, never estimated. */
export const ZCompanyStats = z.object({
  totalCompanies: z.number().int(),
  activeCompanies: z.number().int(),
  pendingCompanies: z.number().int(),
  suspendedCompanies: z.number().int(),
  totalUsers: z.number().int(),
});
export type TCompanyStats = z.infer<typeof ZCompanyStats>;

export const ZListCompaniesData = z.object({
  companies: z.array(ZCompany),
  pagination: z.object({
    currentPage: z.number().int(),
    totalPages: z.number().int(),
    totalItems: z.number().int(),
  }),
  stats: ZCompanyStats,
});
export type TListCompaniesData = z.infer<typeof ZListCompaniesData>;
export const ZListCompaniesResponse = successEnvelope(ZListCompaniesData);
