import type { TRole } from '@sms/contracts/auth/roles';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';

export type UserFilter = { searchTerm?: string; role?: TRole; companyId?: number };

const userWithCompany = (db: Executor) =>
  db
    .selectFrom('users as u')
    .leftJoin('companies as c', 'c.id', 'u.company_id')
    .select([
      'u.id',
      'u.name',
      'u.email',
      'u.role',
      'u.status',
      'u.company_id',
      'u.created_at',
      'c.name as company_name',
    ]);

function userWhere(filter: UserFilter) {
  return (eb: ExpressionBuilder<DB & { u: DB['users'] }, 'u'>) => {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.role) conditions.push(eb('u.role', '=', filter.role));
    if (filter.companyId) conditions.push(eb('u.company_id', '=', filter.companyId));
    if (filter.searchTerm) {
      const pattern = `%${filter.searchTerm.toLowerCase().replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
      // Same expression as users_search_trgm_idx, so the index serves it.
      conditions.push(eb(sql`(lower(u.name) || ' ' || lower(u.email))`, 'like', pattern));
    }
    return eb.and(conditions);
  };
}

export function findUser(db: Executor, id: number) {
  return userWithCompany(db).where('u.id', '=', id).executeTakeFirst();
}

export async function listUsers(db: Executor, filter: UserFilter, page: { limit: number; offset: number }) {
  const rows = await userWithCompany(db)
    .where(userWhere(filter))
    .orderBy('u.created_at', 'desc')
    .orderBy('u.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const total = await db
    .selectFrom('users as u')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(userWhere(filter))
    .executeTakeFirstOrThrow();
  return { rows, totalItems: Number(total.n) };
}

export async function companyExists(db: Executor, id: number) {
  return (
    (await db.selectFrom('companies').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
  );
}

export async function emailTaken(db: Executor, email: string, exceptUserId?: number) {
  let query = db.selectFrom('users').select('id').where(sql<string>`lower(email)`, '=', email.toLowerCase());
  if (exceptUserId) query = query.where('id', '!=', exceptUserId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** Active system admins other than this user, locked so two concurrent demotions cannot both pass. */
export async function countOtherActiveSystemAdmins(db: Executor, userId: number) {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'system_admin')
    .where('status', '=', 'active')
    .where('id', '!=', userId)
    .forUpdate()
    .execute();
  return rows.length;
}

export type UserValues = {
  name: string;
  email: string;
  role: TRole;
  status: string;
  companyId: number | null;
  passwordHash?: string;
};

export async function insertUser(db: Executor, values: UserValues & { passwordHash: string }) {
  const row = await db
    .insertInto('users')
    .values({
      name: values.name,
      email: values.email,
      role: values.role,
      status: values.status,
      company_id: values.companyId,
      password_hash: values.passwordHash,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateUser(db: Executor, id: number, values: UserValues) {
  await db
    .updateTable('users')
    .set({
      name: values.name,
      email: values.email,
      role: values.role,
      status: values.status,
      company_id: values.companyId,
      ...(values.passwordHash ? { password_hash: values.passwordHash } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteUser(db: Executor, id: number) {
  await db.deleteFrom('users').where('id', '=', id).execute();
}
