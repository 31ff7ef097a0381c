import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/open-database.ts';
import { StartupError } from '../lib/startup-error.ts';

try {
  const database = await openDatabase(loadConfig(), console.log);
  console.log(
    database.migrationsApplied.length
      ? `Applied: ${database.migrationsApplied.join(', ')}`
      : 'Database is up to date.',
  );
  await database.close();
  await database.embedded?.stop();
} catch (error) {
  console.error(`Migration failed: ${error instanceof StartupError ? error.message : error}`);
  process.exit(1);
}
