import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export function findAnySystemAdmin(db: Executor) {
  return db.selectFrom('users').select('id').where('role', '=', 'system_admin').limit(1).executeTakeFirst();
}

/** A system admin (no company); nothing when a user has that e-mail already (any case). */
export async function insertSystemAdmin(
  db: Executor,
  admin: { name: string; email: string; passwordHash: string },
) {
  await db
    .insertInto('users')
    .values({
      name: admin.name,
      email: admin.email,
      password_hash: admin.passwordHash,
      role: 'system_admin',
      company_id: null,
    })
    .onConflict((conflict) => conflict.expression(sql`lower(email)`).doNothing())
    .execute();
}

/** The platform secret of that name: `candidate` is stored when there is none yet; the one stored first wins. */
export async function platformSecret(db: Executor, name: string, candidate: string) {
  await db
    .insertInto('platform_secrets')
    .values({ name, value: candidate })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('platform_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value;
}
