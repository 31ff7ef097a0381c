import { rm } from 'node:fs/promises';
import { buildApp } from './app.ts';
import { ensureFirstAdmin } from './bootstrap/first-admin.ts';
import { resolveKeys } from './bootstrap/keys.ts';
import { loadConfig, type ProcessRole } from './config.ts';
import { takeShutdownFromEmbeddedPostgres } from './db/embedded.ts';
import { openDatabase } from './db/open-database.ts';
import { isPortFree } from './lib/free-port.ts';
import { StartupError } from './lib/startup-error.ts';
import { createMessaging, type Messaging, type MessagingLog } from './messaging/messaging.ts';
import { installJobQueue } from './messaging/queue/job-queue.ts';
import { receiveSmppInbound } from './modules/provider-callbacks/smpp-inbound.service.ts';
import { DEMO_PASSWORD, DEMO_SIGN_INS, seedDemoData } from './seed/demo.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

/** `--role api|worker|both` (or ROLE): what this process runs; both by default. */
function roleOf(argv: string[], fallback: ProcessRole): ProcessRole {
  const index = argv.findIndex((arg) => arg === '--role' || arg.startsWith('--role='));
  if (index === -1) return fallback;
  const value = argv[index].includes('=') ? argv[index].split('=')[1] : argv[index + 1];
  if (value !== 'api' && value !== 'worker' && value !== 'both')
    throw new StartupError(`--role must be api, worker or both (got ${value ?? 'nothing'})`);
  return value;
}

/** Whether other machines can reach this one: the demo's sign-ins must not be a surprise on the network. */
function listeningOn(host: string) {
  if (['127.0.0.1', '::1', 'localhost'].includes(host))
    return `Listening on ${host}: this machine only (set HOST=0.0.0.0 to accept connections from the network).`;
  if (['0.0.0.0', '::'].includes(host)) return `Listening on ${host}: every network interface.`;
  return `Listening on ${host}.`;
}

/** Stops what has started, in order, then exits with the code; set once the database is open. */
let stopStarted: ((exitCode: 0 | 1) => Promise<void>) | undefined;

async function main() {
  const env = loadConfig();
  const config = { ...env, role: roleOf(process.argv.slice(2), env.role) };
  const serves = config.role !== 'worker';
  const works = config.role !== 'api';
  if (config.freshData && !config.databaseUrl) await rm(config.dataDir, { recursive: true, force: true });
  if (serves && !(await isPortFree(config.port, config.host))) {
    throw new StartupError(
      `Port ${config.port} is already in use. Stop the other server or start with PORT=<another port>.`,
    );
  }

  const database = await openDatabase(config, say);
  // From here this process stops the database itself, in order, and chooses its exit code: 0 after
  // a stop by SIGTERM or SIGINT (a second signal kills at once), 1 after a failed start-up.
  takeShutdownFromEmbeddedPostgres();
  // The first reason to stop wins: a start-up that fails because a signal is closing it waits for that stop.
  let stopping: Promise<void> | undefined;
  stopStarted = (exitCode) => {
    stopping ??= (async () => {
      // Stop taking requests, then stop taking jobs and let in-flight batches finish (or roll back).
      await app?.close().catch(() => {});
      await messaging?.close().catch(() => {});
      await database.close().catch(() => {});
      await database.embedded?.stop().catch(() => {});
      process.exit(exitCode);
    })();
    return stopping;
  };
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let messaging: Messaging | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      say(`${signal} received: finishing in-flight requests and batches, then shutting down...`);
      void stopStarted?.(0);
    });

  // pg-boss's schema is the owner's, like every other table; the application role gets rights on it.
  await installJobQueue(database.owner.pool);
  const keys = await resolveKeys(config, database.db);
  const seeded = config.seedDemo ? await seedDemoData(database.owner.pool, keys.encryption) : false;
  const admin = await ensureFirstAdmin(config, database.db);

  const quiet = config.logLevel === 'silent';
  const log: MessagingLog = (level, message, error) => {
    if (quiet || (level === 'info' && ['warn', 'error', 'fatal'].includes(config.logLevel))) return;
    const detail = error ? `: ${(error as Error).message ?? error}` : '';
    (level === 'info' ? process.stdout : process.stderr).write(`messaging ${level}: ${message}${detail}\n`);
  };
  messaging = createMessaging({
    // The engine's and jobs' transactions get the longer statement timeout.
    db: database.jobDb,
    pool: database.jobPool,
    config,
    encryptionKey: keys.encryption,
    log,
  });
  let listening = config.publicUrl;
  let port = config.port;
  if (serves) {
    app = await buildApp(
      { config, db: database.db, keys, messaging },
      { logger: { level: config.logLevel } },
    );
    await app.listen({ port: config.port, host: config.host });
    // Simulated delivery reports go to this process's own listener (PUBLIC_URL may not be reachable from here).
    const address = app.server.address();
    if (address && typeof address === 'object') port = address.port;
    if (address && typeof address === 'object')
      listening = `http://${['0.0.0.0', '::'].includes(address.address) ? '127.0.0.1' : address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  }
  if (works) {
    const deps = { config, db: database.db, keys, messaging };
    await messaging.startWorker({
      callbackBase: () => listening,
      // Handset messages over SMPP links: stored as the inbound-message callback stores them.
      onInboundMessage: async (companyId, message) => {
        await receiveSmppInbound(deps, companyId, message);
      },
    });
  }

  say('');
  if (!serves) {
    say(`SMS Console worker is running (role worker: send jobs, fan-out, hand-over; no HTTP listener).`);
    say('Press Ctrl-C to stop.');
    return;
  }
  say(
    `SMS Console is running at http://localhost:${port}  (API docs: /api/docs)${works ? '' : '  [role api: no worker]'}`,
  );
  say(listeningOn(config.host));
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

main().catch(async (error) => {
  if (error instanceof StartupError) {
    process.stderr.write(`Cannot start: ${error.message}\n`);
  } else {
    process.stderr.write(`Cannot start: ${(error as Error).stack ?? error}\n`);
  }
  await stopStarted?.(1);
  process.exit(1);
});
