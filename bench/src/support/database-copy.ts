import pg from 'pg';

/** Runs one statement on the cluster's `postgres` database (creating or dropping another one). */
async function adminQuery(databaseUrl: string, text: string) {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/**
 * A copy of a scenario's database, rows included, named after it with `_<suffix>`; its URL. Nothing
 * may be connected to the database while it is copied.
 */
export async function copyDatabase(databaseUrl: string, suffix: string) {
  const source = new URL(databaseUrl).pathname.slice(1);
  const copy = `${source}_${suffix}`;
  await adminQuery(databaseUrl, `create database ${copy} template ${source}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${copy}`;
  return url.toString();
}

/** Drops a copyDatabase copy, closing what still uses it. */
export async function dropDatabaseCopy(copyUrl: string) {
  await adminQuery(copyUrl, `drop database if exists ${new URL(copyUrl).pathname.slice(1)} with (force)`);
}
