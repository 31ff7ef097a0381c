import { rm } from 'node:fs/promises';
import { buildApp } from './app.ts';
import { ensureFirstAdmin } from './bootstrap/first-admin.ts';
import { resolveKeys } from './bootstrap/keys.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/open-database.ts';
import { isPortFree } from './lib/free-port.ts';
import { StartupError } from './lib/startup-error.ts';
import { DEMO_PASSWORD, DEMO_SIGN_INS, seedDemoData } from './seed/demo.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const config = loadConfig();
  if (config.freshData && !config.databaseUrl) await rm(config.dataDir, { recursive: true, force: true });
  if (!(await isPortFree(config.port, config.host))) {
    throw new StartupError(
      `Port ${config.port} is already in use. Stop the other server or start with PORT=<another port>.`,
    );
  }

  const database = await openDatabase(config, say);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal} received: finishing in-flight requests and shutting down...`);
    await app?.close().catch(() => {});
    await database.close().catch(() => {});
    await database.embedded?.stop().catch(() => {});
    process.exit(0);
  };
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));

  const keys = await resolveKeys(config, database.db);
  const seeded = config.seedDemo ? await seedDemoData(database.owner.pool, keys.encryption) : false;
  const admin = await ensureFirstAdmin(config, database.db);

  app = await buildApp({ config, db: database.db, keys }, { logger: { level: config.logLevel } });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await stop('listen failed');
    throw error;
  }

  say('');
  say(`SMS Console is running at http://localhost:${config.port}  (API docs: /api/docs)`);
  say(database.embedded ? `Database: embedded PostgreSQL in ${config.dataDir}` : 'Database: DATABASE_URL');
  if (seeded) say('Demo data loaded.');
  if (config.seedDemo || seeded) {
    say(`Demo sign-ins (password ${DEMO_PASSWORD}):`);
    for (const demo of DEMO_SIGN_INS)
      say(`  ${demo.email.padEnd(28)} ${demo.role}${demo.company ? ` (${demo.company})` : ''}`);
  }
  if (admin === 'created') say(`Created the first system admin: ${config.adminEmail}`);
  if (admin === 'missing') {
    say(
      'No system admin exists yet: restart with ADMIN_EMAIL and ADMIN_PASSWORD set, or run `npm run seed:demo`.',
    );
  }
  say('Press Ctrl-C to stop.');
}

main().catch((error) => {
  if (error instanceof StartupError) {
    process.stderr.write(`Cannot start: ${error.message}\n`);
  } else {
    process.stderr.write(`Cannot start: ${(error as Error).stack ?? error}\n`);
  }
  process.exit(1);
});
