import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import pg from 'pg';
import { APP_ROLE } from './database.ts';

/** The owner's server and database, as sms_app with the given password. */
export function appRoleUrl(ownerUrl: string, password: string) {
  const url = new URL(ownerUrl);
  url.username = APP_ROLE;
  url.password = encodeURIComponent(password);
  return url.toString();
}

/**
 * Lets sms_app log in with the password of the application's URL, so an operator chooses one
 * password in one place. A login that already works is left alone: processes starting together
 * would otherwise rewrite one row ("tuple concurrently updated").
 */
export async function letAppRoleLogIn(ownerPool: pg.Pool, appUrl: string) {
  const url = new URL(appUrl);
  if (decodeURIComponent(url.username) !== APP_ROLE || !url.password) return;
  if (await canLogIn(appUrl)) return;
  const password = decodeURIComponent(url.password);
  for (let attempt = 1; ; attempt++) {
    try {
      await ownerPool.query(
        `alter role ${APP_ROLE} with login password ${pg.escapeLiteral(storedFormOf(password))}`,
      );
      return;
    } catch (error) {
      const message = (error as Error).message;
      if (attempt < 5 && /tuple concurrently updated/.test(message)) continue;
      throw new Error(
        `Could not let ${APP_ROLE} log in with the password of DATABASE_APP_URL (${message}). ` +
          `The user in DATABASE_URL needs CREATEROLE (and, from PostgreSQL 16, to be the one that created ${APP_ROLE}); ` +
          `or run, as a superuser: alter role ${APP_ROLE} login password '...'.`,
      );
    }
  }
}

async function canLogIn(connectionString: string) {
  const client = new pg.Client({ connectionString });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL would store (RFC 5803), so that the password is never in a
 * logged statement. Beyond printable ASCII it goes as it is: PostgreSQL normalises those its own way.
 */
export function storedFormOf(password: string, salt = randomBytes(16), iterations = 4096) {
  if (!/^[\x20-\x7e]*$/.test(password)) return password;
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const hmac = (text: string) => createHmac('sha256', salted).update(text).digest();
  const storedKey = createHash('sha256').update(hmac('Client Key')).digest('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${hmac('Server Key').toString('base64')}`;
}

type RoleRights = { name: string; superuser: boolean; bypass: boolean; createrole: boolean; owns: boolean };

/**
 * Row-level security does not hold superusers, BYPASSRLS roles or a table's owner, and CREATEROLE
 * can grant itself another role: the application's login must be none of these, nor SET ROLE to one.
 */
export async function assertRowSecurityHolds(handle: { pool: pg.Pool }) {
  let roles: RoleRights[];
  try {
    // Every role the login can act as (itself included): pg_has_role's MEMBER covers SET ROLE.
    ({ rows: roles } = await handle.pool.query<RoleRights>(
      `select r.rolname as name, r.rolsuper as superuser, r.rolbypassrls as bypass,
              r.rolcreaterole as createrole,
              exists (select 1 from pg_class c where c.relowner = r.oid) as owns
         from pg_roles r
        where pg_has_role(session_user, r.oid, 'MEMBER')
        order by r.rolname <> session_user, r.rolname`,
    ));
  } catch (error) {
    throw new Error(
      `The application cannot connect to the database as its own role (${(error as Error).message}). Check DATABASE_APP_URL.`,
    );
  }
  const login = roles[0]?.name ?? 'unknown';
  // A superuser is a member of every role: that alone says enough.
  const problems = (roles[0]?.superuser ? roles.slice(0, 1) : roles).flatMap((role) => {
    const rights = [
      role.superuser && 'is a superuser',
      role.bypass && 'has BYPASSRLS',
      role.createrole && 'has CREATEROLE',
      role.owns && 'owns tables',
    ].filter(Boolean);
    if (!rights.length) return [];
    return [
      `${role.name === login ? login : `${login} can become ${role.name}, which`} ${rights.join(', ')}`,
    ];
  });
  if (problems.length) {
    throw new Error(
      `The application's database login is unsafe (${problems.join('; ')}): row-level security would not hold. ` +
        `DATABASE_APP_URL must name a login that is not a superuser, has no BYPASSRLS or CREATEROLE, owns no table and ` +
        `cannot SET ROLE to a role that does: ${APP_ROLE}, which the migrations create, is one.`,
    );
  }
}
