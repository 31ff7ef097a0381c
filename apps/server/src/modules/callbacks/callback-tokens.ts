import type { TCallbackType } from '@sms/contracts/callbacks/callback-urls';
import type { Executor } from '../../db/database.ts';
import { decryptSecret, encryptSecret, generateToken, hashesEqual, sha256 } from '../../lib/crypto.ts';

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
  await db
    .insertInto('company_callback_tokens')
    .values(
      (Object.entries(tokens) as [TCallbackType, string][]).map(([type, token]) => ({
        company_id: companyId,
        callback_type: type,
        token_hash: sha256(token),
        token_encrypted: encryptSecret(token, encryptionKey),
        created_at: new Date(),
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['company_id', 'callback_type']).doUpdateSet((eb) => ({
        token_hash: eb.ref('excluded.token_hash'),
        token_encrypted: eb.ref('excluded.token_encrypted'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .execute();
  return tokens;
}

/** The company's current tokens in clear, or null for a type never generated. */
export async function readCallbackTokens(db: Executor, companyId: number, encryptionKey: Buffer) {
  const rows = await db
    .selectFrom('company_callback_tokens')
    .select(['callback_type', 'token_encrypted'])
    .where('company_id', '=', companyId)
    .execute();
  const tokens: Record<TCallbackType, string | null> = { subscription: null, dlr: null };
  for (const row of rows) tokens[row.callback_type] = decryptSecret(row.token_encrypted, encryptionKey);
  return tokens;
}

/**
 * True only for the company's current token of that type (a delivery-report token never passes
 * for a subscription callback, nor the reverse), and only while the company is active: an unknown,
 * suspended, pending or inactive company answers false the same way.
 */
export async function isCallbackTokenValid(
  db: Executor,
  type: TCallbackType,
  companyId: number,
  token: string,
) {
  if (!Number.isSafeInteger(companyId) || companyId <= 0 || token.length < 20 || token.length > 200)
    return false;
  const row = await db
    .selectFrom('company_callback_tokens as t')
    .innerJoin('companies as c', 'c.id', 't.company_id')
    .select('t.token_hash')
    .where('t.company_id', '=', companyId)
    .where('t.callback_type', '=', type)
    .where('c.status', '=', 'active')
    .executeTakeFirst();
  const presented = sha256(token);
  // Compare against something even when there is no row, so timing does not reveal which companies exist.
  return hashesEqual(row?.token_hash ?? sha256(''), presented) && row !== undefined;
}
