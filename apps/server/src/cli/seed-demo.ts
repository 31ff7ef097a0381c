import { resolveKeys } from '../bootstrap/keys.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/open-database.ts';
import { DEMO_PASSWORD, DEMO_SIGN_INS, seedDemoData } from '../seed/demo.ts';

try {
  const config = loadConfig();
  const database = await openDatabase(config, console.log);
  const keys = await resolveKeys(config, database.db);
  const seeded = await seedDemoData(database.owner.pool, keys.encryption);
  console.log(
    seeded
      ? `Demo data loaded. Sign in as ${DEMO_SIGN_INS.map((demo) => demo.email).join(', ')} with password ${DEMO_PASSWORD}.`
      : 'The database already holds companies; demo data was not loaded (it only goes into an empty database).',
  );
  await database.close();
  await database.embedded?.stop();
} catch (error) {
  console.error(`Seeding failed: ${(error as Error).message}`);
  process.exit(1);
}
