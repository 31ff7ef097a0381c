import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** How long a key's answer is kept (the upkeep forgets older ones). */
const IDEMPOTENCY_TTL = '24 hours';

export type IdempotencyClaim = { companyId: number; userId: number; key: string; hash: Buffer };

/** The earliest request stored under a user's key, with its answer once it has one. */
export async function findStoredAnswer(db: Executor, userId: number, key: string) {
  const { rows } = await sql<{ request_hash: Buffer; status_code: number | null; response: unknown }>`
    select request_hash, status_code, response from idempotency_keys
     where user_id = ${userId} and idempotency_key = ${key}
     order by created_at limit 1`.execute(db);
  return rows[0];
}

/** Claims the key for this request; false when it was claimed already (a concurrent claim waits here until the first commits). */
export async function claimIdempotencyKey(db: Executor, claim: IdempotencyClaim) {
  const { rows } = await sql`
    insert into idempotency_keys (company_id, user_id, idempotency_key, request_hash)
    values (${claim.companyId}, ${claim.userId}, ${claim.key}, ${claim.hash})
    on conflict do nothing
    returning 1`.execute(db);
  return rows.length > 0;
}

export async function storeAnswer(db: Executor, claim: IdempotencyClaim, statusCode: number, body: unknown) {
  await sql`
    update idempotency_keys set status_code = ${statusCode}, response = ${JSON.stringify(body)}::jsonb
     where company_id = ${claim.companyId} and user_id = ${claim.userId} and idempotency_key = ${claim.key}`.execute(
    db,
  );
}

export async function expireIdempotencyKeys(db: Executor) {
  await sql`delete from idempotency_keys where created_at < now() - ${IDEMPOTENCY_TTL}::interval`.execute(db);
}
