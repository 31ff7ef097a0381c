import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertRowSecurityHolds, storedFormOf } from '../src/db/app-role.ts';
import { connectDatabase } from '../src/db/database.ts';
import { inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { createCompany } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// Row-level security is the second wall only if the application's login cannot step around it:
// the app logs in as sms_app, which is no superuser, has no BYPASSRLS, owns nothing and can
// become no other role, and start-up refuses a login that could (docs/decisions/0005).

let ctx: TestContext;
const PROBE = `login_probe_${process.pid}`;
const PASSWORD = randomBytes(12).toString('hex');
const probes = {
  superuser: `${PROBE}_superuser`,
  bypass: `${PROBE}_bypass`,
  createrole: `${PROBE}_createrole`,
  owner: `${PROBE}_owner`,
  member: `${PROBE}_member`,
};

beforeAll(async () => {
  ctx = await createTestContext();
  const owner = ctx.ownerPool;
  await owner.query(`create role ${probes.superuser} login superuser password '${PASSWORD}'`);
  await owner.query(`create role ${probes.bypass} login bypassrls password '${PASSWORD}'`);
  await owner.query(`create role ${probes.createrole} login createrole password '${PASSWORD}'`);
  await owner.query(`create role ${probes.owner} login password '${PASSWORD}'`);
  await owner.query(`create table ${PROBE}_table (id int)`);
  await owner.query(`alter table ${PROBE}_table owner to ${probes.owner}`);
  // Owns nothing itself, but may SET ROLE to a role that does.
  await owner.query(`create role ${probes.member} login password '${PASSWORD}' in role ${probes.owner}`);
});

afterAll(async () => {
  if (!ctx) return;
  await ctx.ownerPool.query(`drop table if exists ${PROBE}_table`);
  for (const role of Object.values(probes)) await ctx.ownerPool.query(`drop role if exists ${role}`);
  await ctx.close();
});

function loginAs(role: string) {
  const url = new URL(ctx.config.databaseUrl!);
  url.username = role;
  url.password = PASSWORD;
  return connectDatabase(url.toString(), 1);
}

async function refusalOf(role: string) {
  const handle = loginAs(role);
  try {
    await assertRowSecurityHolds(handle);
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  } finally {
    // Kysely never used this pool, so its destroy() would leave the pool open.
    await handle.pool.end();
  }
}

describe("the application's login", () => {
  it('is sms_app, which is no superuser, has no BYPASSRLS or CREATEROLE, owns nothing and can become no other role', async () => {
    const { rows } = await ctx.pool.query(
      `select session_user as login, current_user as acting,
              array(select rolname::text from pg_roles where pg_has_role(session_user, oid, 'MEMBER')) as can_become,
              r.rolsuper as superuser, r.rolbypassrls as bypass, r.rolcreaterole as createrole,
              exists (select 1 from pg_class c where c.relowner = r.oid) as owns
         from pg_roles r where r.rolname = session_user`,
    );
    expect(rows).toEqual([
      {
        login: 'sms_app',
        acting: 'sms_app',
        can_become: ['sms_app'],
        superuser: false,
        bypass: false,
        createrole: false,
        owns: false,
      },
    ]);
    await expect(assertRowSecurityHolds({ pool: ctx.pool })).resolves.toBeUndefined();
  });

  it('cannot step around row-level security by changing its role', async () => {
    await createCompany(ctx.ownerDb);
    const seenByPlatform = await inTenantTransaction(ctx.db, platformScope, (trx) =>
      sql<{ count: number }>`select count(*)::int as count from companies`.execute(trx),
    );
    expect(seenByPlatform.rows[0].count).toBeGreaterThan(0);

    const client = await ctx.pool.connect();
    try {
      const unboundCount = async () =>
        (await client.query('select count(*)::int as count from companies')).rows[0].count;
      for (const reset of ['reset role', 'set role none', 'reset session authorization']) {
        await client.query(reset);
        expect((await client.query('select current_user as acting')).rows[0].acting, reset).toBe('sms_app');
        // Unbound, after the reset: the policies still see nothing.
        expect(await unboundCount(), reset).toBe(0);
      }
      for (const attempt of ['set role postgres', 'set session authorization postgres']) {
        const refused = await client.query(attempt).then(
          () => 'allowed',
          (error: { code?: string }) => error.code,
        );
        expect(refused, attempt).toBe('42501');
        expect(await unboundCount(), attempt).toBe(0);
      }
    } finally {
      await client.query('reset role').catch(() => {});
      client.release();
    }
  });
});

describe("sms_app's password", () => {
  it('is handed to PostgreSQL already hashed, as the very SCRAM verifier PostgreSQL would store', async () => {
    const role = `${PROBE}_scram`;
    await ctx.ownerPool.query(`create role ${role} password 'Harbour Lantern 42!'`);
    try {
      const { rows } = await ctx.ownerPool.query(`select rolpassword from pg_authid where rolname = $1`, [
        role,
      ]);
      const made: string = rows[0].rolpassword;
      const [, iterations, salt] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(made) ?? [];
      expect(storedFormOf('Harbour Lantern 42!', Buffer.from(salt, 'base64'), Number(iterations))).toBe(made);
    } finally {
      await ctx.ownerPool.query(`drop role ${role}`);
    }
  });
});

describe('the start-up check (assertRowSecurityHolds)', () => {
  it.each([
    ['a superuser', probes.superuser, `(${probes.superuser} is a superuser)`],
    ['a BYPASSRLS role', probes.bypass, `(${probes.bypass} has BYPASSRLS)`],
    ['a CREATEROLE role', probes.createrole, `(${probes.createrole} has CREATEROLE)`],
    ['a table owner', probes.owner, `(${probes.owner} owns tables)`],
    [
      'a role that can become a table owner',
      probes.member,
      `(${probes.member} can become ${probes.owner}, which owns tables)`,
    ],
  ])('refuses %s', async (_kind, role, reason) => {
    const message = await refusalOf(role);
    expect(message).toContain(`The application's database login is unsafe ${reason}`);
    expect(message).toContain('row-level security would not hold');
  });
});
