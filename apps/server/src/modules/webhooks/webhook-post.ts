import { WEBHOOK_SIGNATURE_HEADER } from '@sms/contracts/webhooks/webhook';
import { decryptSecret } from '../../lib/crypto.ts';
import type { PublicAddressPolicy } from '../../lib/public-address.ts';
import { postToProvider } from '../../messaging/providers/provider-http.ts';
import { signatureHeader } from './webhook-signature.ts';

/** An endpoint has this long to answer a batch. */
const POST_TIMEOUT_MS = 10_000;

/** The endpoint's signing secret, or null when it cannot be read (written under another ENCRYPTION_KEY). */
export function signingSecretOf(stored: string, encryptionKey: Buffer) {
  try {
    return decryptSecret(stored, encryptionKey);
  } catch {
    return null;
  }
}

const UNREADABLE_SECRET =
  'The signing secret cannot be read (was ENCRYPTION_KEY changed?): delete the endpoint and create it again';

export type PostOutcome = {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  succeeded: boolean;
};

/**
 * One signed POST to an endpoint, never to a private address the operator did not allow (the
 * policy's lookup checks the address actually connected to). A 2xx is success; anything else,
 * a time-out or a refused connection is a failure, described for the deliveries table.
 */
export async function postSigned(
  url: string,
  body: string,
  secret: string | null,
  policy: PublicAddressPolicy,
): Promise<PostOutcome> {
  if (secret === null) return { statusCode: null, durationMs: 0, error: UNREADABLE_SECRET, succeeded: false };
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  try {
    const answer = await postToProvider(
      new URL(url),
      {
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'SMS-Console-Webhooks/1',
          [WEBHOOK_SIGNATURE_HEADER]: signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
        timeoutMs: POST_TIMEOUT_MS,
      },
      policy,
    );
    const succeeded = answer.status >= 200 && answer.status < 300;
    return {
      statusCode: answer.status,
      durationMs: durationMs(),
      error: succeeded ? null : `HTTP ${answer.status}`,
      succeeded,
    };
  } catch (error) {
    return { statusCode: null, durationMs: durationMs(), error: (error as Error).message, succeeded: false };
  }
}
