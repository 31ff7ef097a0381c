import { z } from 'zod';

/** Spec section 4 names these; IMPORT, REGENERATE and REVOKE cover actions the spec does not list. */
export const AUDIT_ACTIONS = [
  'CREATE',
  'UPDATE',
  'DELETE',
  'LOGIN',
  'LOGOUT',
  'APPROVE',
  'REJECT',
  'SUSPEND',
  'IMPORT',
  'REGENERATE',
  'REVOKE',
] as const;
export type TAuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ENTITIES = [
  'SERVICE',
  'COMPANY',
  'SUBSCRIBER',
  'USER',
  'MESSAGE',
  'API_KEY',
  'WEBHOOK_ENDPOINT',
  'TEMPLATE',
] as const;
export type TAuditEntity = (typeof AUDIT_ENTITIES)[number];

export const AUDIT_LOG_LIMIT = 50;

export const ZAuditEntry = z.object({
  id: z.number().int(),
  timestamp: z.string(),
  action: z.string(),
  entity: z.string(),
  entityId: z.string().nullable(),
  userId: z.number().int().nullable(),
  userName: z.string().nullable(),
  userEmail: z.string().nullable(),
  companyId: z.number().int().nullable(),
  details: z.record(z.string(), z.unknown()),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
});
export type TAuditEntry = z.infer<typeof ZAuditEntry>;
