import { createHmac, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_START } from '@sms/contracts/webhooks/webhook';

/** A new signing secret: `whsec_` and 32 random bytes (base64url); its first 10 characters are shown later. */
export function generateWebhookSecret() {
  const secret = `${WEBHOOK_SECRET_START}${randomBytes(32).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, WEBHOOK_SECRET_START.length + 4) };
}

/** The Webhook-Signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (as Stripe's). */
export function signatureHeader(secret: string, body: string, unixSeconds: number) {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
