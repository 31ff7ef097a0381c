import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Keys } from '../app-deps.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { StartupError } from '../lib/startup-error.ts';
import { platformSecret } from './bootstrap.repository.ts';

/**
 * The JWT key comes from JWT_SECRET, else from a secret generated once and kept in the database,
 * so every API process of one deployment signs alike. The encryption key for provider
 * credentials must not sit beside what it protects: ENCRYPTION_KEY, else (embedded database
 * only) a key file generated in the data folder.
 */
export async function resolveKeys(config: Config, db: Database): Promise<Keys> {
  return { jwt: await resolveJwtKey(config, db), encryption: await resolveEncryptionKey(config) };
}

async function resolveJwtKey(config: Config, db: Database) {
  if (config.jwtSecret) return new TextEncoder().encode(config.jwtSecret);
  const stored = await platformSecret(db, 'jwt_signing_key', randomBytes(32).toString('base64url'));
  return new TextEncoder().encode(stored);
}

async function resolveEncryptionKey(config: Config) {
  if (config.encryptionKey) return Buffer.from(config.encryptionKey, 'hex');
  if (config.databaseUrl) {
    throw new StartupError(
      'ENCRYPTION_KEY is required with DATABASE_URL (64 hex characters; generate one with `openssl rand -hex 32`).',
    );
  }
  const file = path.join(config.dataDir, 'encryption.key');
  if (existsSync(file)) return Buffer.from((await readFile(file, 'utf8')).trim(), 'hex');
  const key = randomBytes(32);
  await writeFile(file, key.toString('hex'), { mode: 0o600 });
  return key;
}
