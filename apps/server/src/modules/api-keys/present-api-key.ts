import type { TApiKey } from '@sms/contracts/api-keys/api-key';
import type { ApiKeyRow } from './api-keys.repository.ts';

export function presentApiKey(row: ApiKeyRow): TApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as TApiKey['scopes'],
    createdAt: row.created_at.toISOString(),
    createdByName: row.created_by_name,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}
