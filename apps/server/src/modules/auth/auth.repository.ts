import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

const userWithCompany = (db: Executor) =>
  db
    .selectFrom('users as u')
    .leftJoin('companies as c', 'c.id', 'u.company_id')
    .select([
      'u.id',
      'u.name',
      'u.email',
      'u.password_hash',
      'u.role',
      'u.status',
      'u.company_id',
      'u.created_at',
      'c.name as company_name',
      'c.status as company_status',
    ]);

export type UserWithCompany = NonNullable<Awaited<ReturnType<typeof findUserById>>>;

export function findUserByEmail(db: Executor, email: string) {
  return userWithCompany(db).where(sql<string>`lower(u.email)`, '=', email.toLowerCase()).executeTakeFirst();
}

export function findUserById(db: Executor, id: number) {
  return userWithCompany(db).where('u.id', '=', id).executeTakeFirst();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The user behind an access token, provided the sign-in it belongs to has not been ended. One
 * statement outside any transaction (app_session_user, migration 0012, crosses tenants for this
 * lookup only): every request asks it first.
 */
export async function findUserInLiveSession(db: Executor, userId: number, sessionId: string) {
  // Sign-ins are UUIDs; anything else names none (and must not reach the cast as an error).
  if (!UUID.test(sessionId)) return undefined;
  const { rows } = await sql<{
    id: number;
    name: string;
    email: string;
    role: string;
    status: string;
    company_id: number | null;
    company_name: string | null;
    company_status: string | null;
  }>`select * from app_session_user(${userId}, ${sessionId}::uuid)`.execute(db);
  return rows[0];
}

export type SessionUser = NonNullable<Awaited<ReturnType<typeof findUserInLiveSession>>>;

export async function recordSuccessfulLogin(db: Executor, userId: number, companyId: number | null) {
  await db.updateTable('users').set({ last_login_at: new Date() }).where('id', '=', userId).execute();
  if (companyId !== null) {
    await db
      .updateTable('companies')
      .set({ last_active_at: new Date() })
      .where('id', '=', companyId)
      .execute();
  }
}

export type NewRefreshToken = {
  userId: number;
  familyId: string;
  tokenHash: Buffer;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
};

export async function insertRefreshToken(db: Executor, token: NewRefreshToken) {
  await db
    .insertInto('refresh_tokens')
    .values({
      user_id: token.userId,
      family_id: token.familyId,
      token_hash: token.tokenHash,
      expires_at: token.expiresAt,
      ip_address: token.ip,
      user_agent: token.userAgent?.slice(0, 500) ?? null,
    })
    .execute();
}

export function findRefreshToken(db: Executor, tokenHash: Buffer) {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks a token spent; false when another request spent it first (a reuse). */
export async function markRefreshTokenUsed(db: Executor, id: number) {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ used_at: new Date() })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Keeps the (encrypted) token that replaced a spent one, for a reuse within the grace period. */
export async function recordSuccessor(db: Executor, id: number, successorToken: string) {
  await db
    .updateTable('refresh_tokens')
    .set({ successor_token: successorToken })
    .where('id', '=', id)
    .execute();
}

export async function revokeFamily(db: Executor, familyId: string) {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: new Date() })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeAllSessionsOfUser(db: Executor, userId: number) {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}
