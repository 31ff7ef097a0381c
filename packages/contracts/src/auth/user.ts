import { z } from 'zod';
import { ROLES } from './roles.ts';

export const USER_STATUSES = ['active', 'inactive', 'suspended'] as const;
export type TUserStatus = (typeof USER_STATUSES)[number];

export const ZUser = z.object({
  id: z.number().int(),
  name: z.string(),
  firstName: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  status: z.enum(USER_STATUSES),
  companyId: z.number().int().nullable(),
  company: z.object({ name: z.string() }).nullable(),
  createdAt: z.string(),
});
export type TUser = z.infer<typeof ZUser>;
