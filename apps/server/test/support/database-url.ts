import pg from 'pg';

export function databaseUrl(serverUrl: string, database: string) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs work on a connection to the test server's admin database. */
export async function withAdmin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    // Two files cloning the template at the same instant can collide; the second simply retries.
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(client);
      } catch (error) {
        if (attempt >= 5 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  } finally {
    await client.end();
  }
}
