import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type ApiKeyRow = {
  id: number;
  company_id: number;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  created_by_name: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

const KEY_COLUMNS = sql`k.id, k.company_id, k.name, k.prefix, k.scopes,
  k.created_at, (select u.name from users u where u.id = k.created_by) as created_by_name,
  k.last_used_at, k.revoked_at`;

export async function insertApiKey(
  db: Executor,
  key: { companyId: number; name: string; prefix: string; hash: Buffer; scopes: string[]; createdBy: number },
) {
  const { rows } = await sql<{ id: number }>`
    insert into api_keys (company_id, name, prefix, key_hash, scopes, created_by)
    values (${key.companyId}, ${key.name}, ${key.prefix}, ${key.hash}, ${key.scopes}::text[], ${key.createdBy})
    returning id`.execute(db);
  return rows[0]!.id;
}

/** A company's keys: live ones first, then revoked, newest first in each. */
export async function listApiKeys(db: Executor, companyId: number) {
  const { rows } = await sql<ApiKeyRow>`
    select ${KEY_COLUMNS} from api_keys k
     where k.company_id = ${companyId}
     order by k.revoked_at is not null, k.created_at desc, k.id desc`.execute(db);
  return rows;
}

export async function findApiKey(db: Executor, companyId: number, id: number) {
  const { rows } = await sql<ApiKeyRow>`
    select ${KEY_COLUMNS} from api_keys k where k.company_id = ${companyId} and k.id = ${id}`.execute(db);
  return rows[0];
}

/** Revokes a live key; false when the company has no such key or it was revoked before. */
export async function revokeApiKey(db: Executor, companyId: number, id: number) {
  const { rows } = await sql`
    update api_keys set revoked_at = now()
     where company_id = ${companyId} and id = ${id} and revoked_at is null
    returning id`.execute(db);
  return rows.length > 0;
}

export type ApiKeyInUse = {
  id: number;
  company_id: number;
  name: string;
  key_hash: Buffer;
  scopes: string[];
  revoked_at: Date | null;
  last_used_at: Date | null;
  company_status: string;
  created_by: number;
  creator_email: string;
};

/** The keys with this prefix (one, unless two random prefixes met), in any company: run in the platform scope. */
export async function findApiKeysByPrefix(db: Executor, prefix: string) {
  const { rows } = await sql<ApiKeyInUse>`
    select k.id, k.company_id, k.name, k.key_hash, k.scopes, k.revoked_at,
           k.last_used_at, c.status as company_status, k.created_by, u.email as creator_email
      from api_keys k
      join companies c on c.id = k.company_id
      join users u on u.id = k.created_by
     where k.prefix = ${prefix}`.execute(db);
  return rows;
}

/** Marks a key used now, unless it was within the last minute (so a busy key is not written on every request). */
export async function touchApiKey(db: Executor, companyId: number, id: number) {
  await sql`
    update api_keys set last_used_at = now()
     where company_id = ${companyId} and id = ${id}
       and (last_used_at is null or last_used_at < now() - interval '1 minute')`.execute(db);
}

/** A key as a later batch of its request re-checks it: still live, its company still active. */
export async function findApiKeyStanding(db: Executor, companyId: number, id: number) {
  const { rows } = await sql<{ revoked_at: Date | null; company_status: string }>`
    select k.revoked_at, c.status as company_status
      from api_keys k join companies c on c.id = k.company_id
     where k.company_id = ${companyId} and k.id = ${id}`.execute(db);
  return rows[0];
}
