import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Messaging } from './messaging/messaging.ts';

export type Keys = { jwt: Uint8Array; encryption: Buffer };

/** What every module needs, built once in main (or per test) and handed to the app. */
export type AppDeps = { config: Config; db: Database; keys: Keys; messaging: Messaging };
