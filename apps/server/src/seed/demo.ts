import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { hashPassword } from '../modules/auth/passwords.ts';

export const DEMO_PASSWORD = 'Password123!';

export const DEMO_SIGN_INS = [
  { email: 'admin@example.com', role: 'system_admin', company: null },
  { email: 'owner@acme.example.com', role: 'company_admin', company: 'Acme Mobile' },
  { email: 'editor@acme.example.com', role: 'content_manager', company: 'Acme Mobile' },
  { email: 'viewer@acme.example.com', role: 'viewer', company: 'Acme Mobile' },
  { email: 'owner@globex.example.com', role: 'company_admin', company: 'Globex Telecom' },
] as const;

/** Whether the database already holds companies (demo or real): seeding never runs on top of data. */
export async function hasAnyCompany(pool: pg.Pool) {
  const { rows } = await pool.query('select exists (select 1 from companies) as present');
  return rows[0].present as boolean;
}

/** Loads the demo data set in one transaction. Returns false (and changes nothing) when data exists. */
export async function seedDemoData(pool: pg.Pool): Promise<boolean> {
  if (await hasAnyCompany(pool)) return false;
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const template = await readFile(new URL('./demo-data.sql', import.meta.url), 'utf8');
  const script = template.replaceAll(':password_hash', pg.escapeLiteral(passwordHash));
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(script);
    await client.query('commit');
    return true;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}
