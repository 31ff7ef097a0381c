import type { Executor } from '../../db/database.ts';

export type TemplateRow = {
  id: number;
  company_id: number;
  company_name: string;
  name: string;
  body: string;
  created_at: Date;
  updated_at: Date;
};

function templates(db: Executor) {
  return db
    .selectFrom('message_templates as t')
    .innerJoin('companies as c', 'c.id', 't.company_id')
    .select([
      't.id',
      't.company_id',
      'c.name as company_name',
      't.name',
      't.body',
      't.created_at',
      't.updated_at',
    ]);
}

/** A company's templates by name (companyId null: every company's, a system_admin's). */
export function listTemplates(db: Executor, companyId: number | null): Promise<TemplateRow[]> {
  let query = templates(db);
  if (companyId !== null) query = query.where('t.company_id', '=', companyId);
  return query.orderBy('c.name').orderBy('t.name').orderBy('t.id').execute();
}

export function findTemplate(
  db: Executor,
  companyId: number | null,
  id: number,
): Promise<TemplateRow | undefined> {
  let query = templates(db).where('t.id', '=', id);
  if (companyId !== null) query = query.where('t.company_id', '=', companyId);
  return query.executeTakeFirst();
}

export async function countTemplates(db: Executor, companyId: number) {
  const row = await db
    .selectFrom('message_templates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether another of the company's templates already has this name (case-insensitive). */
export async function nameTaken(db: Executor, companyId: number, name: string, exceptId?: number) {
  let query = db
    .selectFrom('message_templates')
    .select('id')
    .where('company_id', '=', companyId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertTemplate(
  db: Executor,
  values: { companyId: number; name: string; body: string; createdBy: number },
) {
  const row = await db
    .insertInto('message_templates')
    .values({
      company_id: values.companyId,
      name: values.name,
      body: values.body,
      created_by: values.createdBy,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateTemplate(
  db: Executor,
  companyId: number,
  id: number,
  values: { name: string; body: string },
) {
  await db
    .updateTable('message_templates')
    .set({ name: values.name, body: values.body, updated_at: new Date() })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

export async function deleteTemplate(db: Executor, companyId: number, id: number) {
  await db.deleteFrom('message_templates').where('company_id', '=', companyId).where('id', '=', id).execute();
}

export async function companyExists(db: Executor, companyId: number) {
  return (
    (await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst()) !==
    undefined
  );
}
