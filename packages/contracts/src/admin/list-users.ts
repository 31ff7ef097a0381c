import { z } from 'zod';
import { ROLES } from '../auth/roles.ts';
import { ZUser } from '../auth/user.ts';
import { successEnvelope } from '../common/envelope.ts';
import {
  QUERY_ID_MESSAGES,
  ZOptionalQueryId,
  ZOptionalQueryText,
  ZPage,
  ZPageSize,
} from '../common/pagination.ts';
import { USER_PAGE_SIZE } from './admin-user.ts';

export const ZListUsersQuery = z.object({
  page: ZPage,
  limit: ZPageSize(USER_PAGE_SIZE),
  searchTerm: ZOptionalQueryText,
  role: z
    .union([z.enum(ROLES), z.literal('')], { error: `role must be one of ${ROLES.join(', ')}` })
    .optional()
    .transform((value) => (value ? value : undefined)),
  companyId: ZOptionalQueryId(QUERY_ID_MESSAGES.companyId),
});
/** What a client sends (the schema also accepts the query-string forms). */
export type TListUsersQuery = {
  page?: number;
  limit?: number;
  searchTerm?: string;
  role?: (typeof ROLES)[number] | '';
  companyId?: number | '';
};

export const ZListUsersData = z.object({
  users: z.array(ZUser),
  currentPage: z.number().int(),
  totalPages: z.number().int(),
  totalItems: z.number().int(),
});
export type TListUsersData = z.infer<typeof ZListUsersData>;
export const ZListUsersResponse = successEnvelope(ZListUsersData);
