import { randomInt } from 'node:crypto';
import { API_KEY_PATTERN, API_KEY_TOKEN_START } from '@sms/contracts/api-keys/api-key';
import { sha256 } from '../../lib/crypto.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const randomText = (length: number) =>
  Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

/**
 * A new key: `smsk_live_` + 8 characters (the prefix, shown in the console) + `_` + 40 characters
 * (about 238 bits of secret). Letters and digits only, so it survives copying and shells unquoted.
 */
export function generateApiKey() {
  const prefix = `${API_KEY_TOKEN_START}${randomText(8)}`;
  const key = `${prefix}_${randomText(40)}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export const hashApiKey = (key: string) => sha256(key);

/** The prefix of a well-formed key, or undefined (refused before any query). */
export function prefixOfApiKey(key: string) {
  const match = API_KEY_PATTERN.exec(key);
  return match ? `${API_KEY_TOKEN_START}${match[1]}` : undefined;
}

export const looksLikeApiKey = (token: string) => token.startsWith(API_KEY_TOKEN_START);
