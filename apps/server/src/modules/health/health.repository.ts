import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** The smallest statement the database answers. */
export async function pingDatabase(db: Executor) {
  await sql`select 1`.execute(db);
}
