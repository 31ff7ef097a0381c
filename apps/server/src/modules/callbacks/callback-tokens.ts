import type { TCallbackType } from '@sms/contracts/callbacks/callback-urls';
import type { Executor } from '../../db/database.ts';
import { decryptSecret, encryptSecret, generateToken, hashesEqual, sha256 } from '../../lib/crypto.ts';
import {
  findCallbackTokenHashAndStatus,
  findEncryptedCallbackTokens,
  upsertCallbackTokens,
} from './callbacks.repository.ts';

/**
 * The secret in a company's callback URLs. Stored twice: SHA-256 for checking an incoming call
 * (constant-time), AES-GCM so the console can show the URL again. Regenerating replaces both,
 * so the old URL stops working at once.
 */
export function callbackUrl(publicUrl: string, type: TCallbackType, companyId: number, token: string) {
  return `${publicUrl}/api/v1/callbacks/${type}/${companyId}/${token}`;
}

export async function regenerateCallbackTokens(db: Executor, companyId: number, encryptionKey: Buffer) {
  const tokens = { subscription: generateToken(), dlr: generateToken() } satisfies Record<
    TCallbackType,
    string
  >;
  await upsertCallbackTokens(
    db,
    (Object.entries(tokens) as [TCallbackType, string][]).map(([type, token]) => ({
      company_id: companyId,
      callback_type: type,
      token_hash: sha256(token),
      token_encrypted: encryptSecret(token, encryptionKey),
      created_at: new Date(),
    })),
  );
  return tokens;
}

/** The company's current tokens in clear, or null for a type never generated. */
export async function readCallbackTokens(db: Executor, companyId: number, encryptionKey: Buffer) {
  const rows = await findEncryptedCallbackTokens(db, companyId);
  const tokens: Record<TCallbackType, string | null> = { subscription: null, dlr: null };
  for (const row of rows) tokens[row.callback_type] = decryptSecret(row.token_encrypted, encryptionKey);
  return tokens;
}

/**
 * Whether a company id and token can be a callback URL's at all (ours are 43 characters); anything
 * else is refused before a query, the same way as a wrong token.
 */
export function isWellFormedCallbackUrl(companyId: number, token: string | undefined) {
  if (!Number.isSafeInteger(companyId) || companyId <= 0) return false;
  return token === undefined || (token.length >= 20 && token.length <= 200);
}

/**
 * True only for the company's current token of that type (a delivery-report token never passes
 * for a subscription callback, nor the reverse), whatever the company's status (an unknown company
 * answers false the same way). The rule is the database function current_callback_token_hash
 * (migrations 0021 and 0049), which the delivery-report batches use too.
 */
export async function isCallbackTokenValid(
  db: Executor,
  type: TCallbackType,
  companyId: number,
  token: string,
) {
  return (await callbackCompanyStatus(db, type, companyId, token)) !== null;
}

/**
 * The status of the company a callback URL names (active, suspended, pending, inactive) when its
 * token is that company's current one of the type; null otherwise. One statement, the token
 * compared in constant time.
 */
export async function callbackCompanyStatus(
  db: Executor,
  type: TCallbackType,
  companyId: number,
  token: string,
): Promise<string | null> {
  if (!isWellFormedCallbackUrl(companyId, token)) return null;
  const { hash: stored, status } = await findCallbackTokenHashAndStatus(db, type, companyId);
  const presented = sha256(token);
  // Compare against something even when there is no row, so timing does not reveal which companies exist.
  const valid = hashesEqual(stored ?? sha256(''), presented) && stored !== null;
  return valid ? status : null;
}
