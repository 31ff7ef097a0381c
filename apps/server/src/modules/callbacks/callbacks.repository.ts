import type { TCallbackType } from '@sms/contracts/callbacks/callback-urls';
import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { CompanyCallbackTokensTable } from '../../db/schema.ts';

/** Writes a company's tokens, replacing those of the same types. */
export async function upsertCallbackTokens(db: Executor, rows: Insertable<CompanyCallbackTokensTable>[]) {
  await db
    .insertInto('company_callback_tokens')
    .values(rows)
    .onConflict((conflict) =>
      conflict.columns(['company_id', 'callback_type']).doUpdateSet((eb) => ({
        token_hash: eb.ref('excluded.token_hash'),
        token_encrypted: eb.ref('excluded.token_encrypted'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .execute();
}

/** The company's tokens as stored (encrypted), one row per type generated. */
export function findEncryptedCallbackTokens(db: Executor, companyId: number) {
  return db
    .selectFrom('company_callback_tokens')
    .select(['callback_type', 'token_encrypted'])
    .where('company_id', '=', companyId)
    .execute();
}

/**
 * The hash of the company's current token of the type (current_callback_token_hash, migrations
 * 0021 and 0049) and the company's status, in one statement; both null for an unknown company.
 */
export async function findCallbackTokenHashAndStatus(db: Executor, type: TCallbackType, companyId: number) {
  const { rows } = await sql<{ hash: Buffer | null; status: string | null }>`
    select current_callback_token_hash(${companyId}::bigint, ${type}) as hash,
           (select status from companies where id = ${companyId}) as status`.execute(db);
  return { hash: rows[0]?.hash ?? null, status: rows[0]?.status ?? null };
}

export function findCompanyName(db: Executor, companyId: number) {
  return db.selectFrom('companies').select(['id', 'name']).where('id', '=', companyId).executeTakeFirst();
}
