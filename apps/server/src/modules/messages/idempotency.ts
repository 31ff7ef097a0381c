import { createHash } from 'node:crypto';
import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import type { Executor } from '../../db/database.ts';
import { badRequest, conflict } from '../../errors.ts';
import { claimIdempotencyKey, findStoredAnswer, storeAnswer } from './idempotency.repository.ts';

export type StoredAnswer = { statusCode: number; body: unknown };

/** The Idempotency-Key header as given, or null; a malformed one is a 400. */
export function readIdempotencyKey(header: string | string[] | undefined) {
  if (header === undefined) return null;
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key))
    throw badRequest(MESSAGE_MESSAGES.idempotencyKeyInvalid);
  return key;
}

/** What makes two requests "the same": the operation and its body, keys in a stable order. */
export function requestHashOf(operation: string, body: unknown) {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
      );
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify([operation, canonical(body)]))
    .digest();
}

/** The stored answer of an earlier request with this key (409 if that request was another one), or null. */
export async function replayAnswer(db: Executor, userId: number, key: string | null, hash: Buffer) {
  if (key === null) return null;
  const earlier = await findStoredAnswer(db, userId, key);
  return earlier ? replay(earlier, hash) : null;
}

function replay(row: { request_hash: Buffer; status_code: number | null; response: unknown }, hash: Buffer) {
  if (!row.request_hash.equals(hash)) throw conflict(MESSAGE_MESSAGES.idempotencyKeyReused);
  return { statusCode: row.status_code ?? 200, body: row.response } satisfies StoredAnswer;
}

/**
 * Runs a mutation once per (user, Idempotency-Key), inside the caller's transaction: the key is
 * claimed first (a concurrent retry waits on it until the first commits, then replays its answer),
 * the answer is stored with the mutation, so a retry gets the first answer, status and body alike.
 * The same key with another request is a 409. Without a key the work simply runs.
 */
export async function oncePerKey(
  trx: Executor,
  claim: { companyId: number; userId: number; key: string | null; hash: Buffer },
  work: () => Promise<StoredAnswer>,
): Promise<StoredAnswer> {
  const { key } = claim;
  if (key === null) return work();
  const earlier = await findStoredAnswer(trx, claim.userId, key);
  if (earlier) return replay(earlier, claim.hash);
  if (!(await claimIdempotencyKey(trx, { ...claim, key }))) {
    const first = await findStoredAnswer(trx, claim.userId, key);
    if (first) return replay(first, claim.hash);
  }
  const answer = await work();
  await storeAnswer(trx, { ...claim, key }, answer.statusCode, answer.body);
  return answer;
}
