import { STATUS_CODES } from 'node:http';
import {
  createPublicAddressPolicy,
  NON_PUBLIC_REASON,
  NonPublicAddressError,
  type PublicAddressPolicy,
} from '../../lib/public-address.ts';
import { type OutboundSms, retryEach, retryOf, type SmsProvider, type SubmitOutcome } from './provider.ts';
import {
  mayHaveArrived,
  type ProviderAnswer,
  ProviderTimeoutError,
  postToProvider,
  providerUrlProblem,
} from './provider-http.ts';

/** Where Africa's Talking answers (providers.md); a custom base URL points tests at a local fake. */
export const AFRICASTALKING_BASE_URLS = {
  live: 'https://api.africastalking.com',
  sandbox: 'https://api.sandbox.africastalking.com',
} as const;

export type AfricasTalkingConfig = {
  /** `{baseUrl}/version1/messaging` is called. */
  baseUrl: string;
  username: string;
  apiKey: string;
  /** Used when a message carries no `from` of its own. */
  senderId?: string | null;
  /** Recipients per request (Africa's Talking documents no limit; 100 is our assumption). */
  batchSize?: number;
  timeoutMs?: number;
  /** PROVIDER_ALLOWED_PRIVATE_HOSTS: any other private host is refused. */
  allowedPrivateHosts?: readonly string[];
};

export const AFRICASTALKING_DEFAULT_BATCH_SIZE = 100;
const DEFAULT_TIMEOUT_MS = 30_000;

/** Per-recipient status codes that mean "taken over": 100 Processed, 101 Sent, 102 Queued. */
const ACCEPTED_CODES = new Set([100, 101, 102]);
/**
 * 4xx (InvalidPhoneNumber, UserInBlacklist, InsufficientBalance, ...) and 502 RejectedByGateway
 * refuse that recipient for good; 500 InternalServerError and 501 GatewayError are worth another try.
 */
const isPermanentCode = (code: number) => (code >= 400 && code < 500) || code === 502;
/** 401 RiskHold and 405 InsufficientBalance: the account cannot send to anyone until it is sorted out. */
const ACCOUNT_CODES = new Set([401, 405]);

/** The documented per-recipient status words (providers.md), by their codes. */
const STATUS_NAMES: Record<number, string> = {
  100: 'Processed',
  101: 'Sent',
  102: 'Queued',
  401: 'RiskHold',
  402: 'InvalidSenderId',
  403: 'InvalidPhoneNumber',
  404: 'UnsupportedNumberType',
  405: 'InsufficientBalance',
  406: 'UserInBlacklist',
  407: 'CouldNotRoute',
  409: 'DoNotDisturbRejection',
  500: 'InternalServerError',
  501: 'GatewayError',
  502: 'RejectedByGateway',
};
/** Words the API is known to answer with besides those (101 comes back as Success). */
const KNOWN_STATUS_WORDS = new Map(
  [...Object.values(STATUS_NAMES), 'Success'].map((word) => [word.toLowerCase(), word]),
);

/** A recipient's status as stored and shown: a documented word, never free text from the answer. */
function knownStatus(word: unknown, code: number) {
  const known = typeof word === 'string' ? KNOWN_STATUS_WORDS.get(word.trim().toLowerCase()) : undefined;
  return known ?? STATUS_NAMES[code] ?? `status ${Number.isFinite(code) ? code : '?'}`;
}

type AtRecipient = { statusCode?: unknown; number?: unknown; status?: unknown; messageId?: unknown };

/**
 * Africa's Talking over its HTTP messaging API, one request per text and sender (one `message` for
 * many `to`). Only a recipient's own status code rejects it: a refused key, a 5xx or an unreadable
 * answer offers the whole request again, so a wrong setting cannot burn through a send.
 */
export function createAfricasTalkingProvider(
  config: AfricasTalkingConfig,
  addressPolicy: PublicAddressPolicy = createPublicAddressPolicy(config.allowedPrivateHosts ?? []),
): SmsProvider {
  const batchSize = Math.max(1, config.batchSize ?? AFRICASTALKING_DEFAULT_BATCH_SIZE);
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const endpoint = URL.parse(`${config.baseUrl.replace(/\/+$/, '')}/version1/messaging`);
  const urlProblem = endpoint ? providerUrlProblem(endpoint) : 'scheme';
  // Settings saved before the base URL was checked are refused here too.
  const refusedUrl = urlProblem && `Africa's Talking base URL refused: ${URL_PROBLEMS[urlProblem]}`;

  async function sendRequest(group: OutboundSms[]): Promise<SubmitOutcome[]> {
    if (refusedUrl || !endpoint) return retryEach(group, refusedUrl || URL_PROBLEMS.scheme, 'account');
    const first = group[0]!;
    const form = new URLSearchParams({
      username: config.username,
      to: group.map((sms) => sms.to).join(','),
      message: first.text,
    });
    const from = first.from || config.senderId;
    if (from) form.set('from', from);
    form.set('bulkSMSMode', '1');
    form.set('enqueue', '1');

    let answer: ProviderAnswer;
    try {
      answer = await postToProvider(
        endpoint,
        {
          headers: {
            apiKey: config.apiKey,
            Accept: 'application/json',
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          body: form.toString(),
          timeoutMs,
        },
        addressPolicy,
      );
    } catch (error) {
      // Asked and never answered: Africa's Talking may have taken the request, and offering it
      // again could send it twice. Its delivery reports (by id, or by phone number) settle it.
      if (mayHaveArrived(error))
        return group.map((sms) => ({
          recipientKey: sms.recipientKey,
          outcome: 'unknown',
          reason: unreachableReason(error, timeoutMs),
        }));
      // Not even asked: offered again; no route at all is the account's trouble.
      const scope = error instanceof ProviderTimeoutError ? 'request' : 'account';
      return retryEach(group, unreachableReason(error, timeoutMs), scope);
    }

    // Reasons name the HTTP status in its standard words, never the answer's own text: they are
    // shown to the company, and the answer may come from wherever the base URL points.
    const status = httpStatus(answer.status);
    if (answer.status === 401 || answer.status === 403) {
      return retryEach(
        group,
        `Africa's Talking refused the credentials (${status}): check the company's API key and API username`,
        'account',
      );
    }
    if (answer.status >= 300 && answer.status < 400) {
      return retryEach(
        group,
        `Africa's Talking answered ${status}, a redirect, which is not followed`,
        'account',
      );
    }
    if (answer.status < 200 || answer.status >= 300) {
      return retryEach(group, `Africa's Talking answered ${status}`, 'request');
    }
    const recipients = readRecipients(answer.body);
    if (!recipients) {
      return retryEach(group, `Africa's Talking answered ${status} with an unreadable body`, 'request');
    }
    return mapRecipients(group, recipients);
  }

  return {
    kind: 'africastalking',
    maxBatchSize: batchSize,
    async sendBatch(messages) {
      const outcomes: SubmitOutcome[] = [];
      let heldBack: string | null = null;
      for (const group of groupBySameText(messages, batchSize)) {
        // After a request that got no answer, the rest are offered again rather than hang too.
        if (heldBack) {
          outcomes.push(...retryEach(group, heldBack, 'request'));
          continue;
        }
        const answered = await sendRequest(group);
        const unknown = answered.find((outcome) => outcome.outcome === 'unknown');
        if (unknown?.outcome === 'unknown') heldBack = `held back: ${unknown.reason}`;
        outcomes.push(...answered);
      }
      return outcomes;
    },
    async close() {},
  };
}

/** Requests of at most `size` recipients that share text and sender. */
function groupBySameText(messages: OutboundSms[], size: number) {
  const groups = new Map<string, OutboundSms[]>();
  for (const sms of messages) {
    const key = JSON.stringify([sms.text, sms.from]);
    const group = groups.get(key);
    if (group) group.push(sms);
    else groups.set(key, [sms]);
  }
  const requests: OutboundSms[][] = [];
  for (const group of groups.values()) {
    for (let start = 0; start < group.length; start += size) requests.push(group.slice(start, start + size));
  }
  return requests;
}

const URL_PROBLEMS = {
  scheme: 'it is not an http or https address',
  credentials: 'it carries a user name or password',
} as const;

/** `HTTP 502 Bad Gateway`: the code and its standard phrase, whatever phrase the server sent. */
const httpStatus = (code: number) => `HTTP ${code}${STATUS_CODES[code] ? ` ${STATUS_CODES[code]}` : ''}`;

/** Why a request got no answer, in a few known words: no host, port or message of the socket's. */
function unreachableReason(error: unknown, timeoutMs: number) {
  if (error instanceof ProviderTimeoutError) return `Africa's Talking did not answer within ${timeoutMs} ms`;
  if (error instanceof NonPublicAddressError)
    return `Africa's Talking base URL refused: ${NON_PUBLIC_REASON}`;
  const code = (error as NodeJS.ErrnoException).code;
  return `Africa's Talking could not be reached (${code && /^[A-Z_]+$/.test(code) ? code : 'network error'})`;
}

function readRecipients(body: string): AtRecipient[] | null {
  try {
    const parsed = JSON.parse(body) as { SMSMessageData?: { Recipients?: unknown } };
    const recipients = parsed?.SMSMessageData?.Recipients;
    return Array.isArray(recipients) ? (recipients as AtRecipient[]) : null;
  } catch {
    return null;
  }
}

/** The answer names numbers as sent ('+254...'); compare on digits only. */
const digitsOf = (number: unknown) => String(number ?? '').replace(/\D/g, '');

function mapRecipients(group: OutboundSms[], recipients: AtRecipient[]): SubmitOutcome[] {
  // A number may appear twice in one request; answers are matched to recipients in order.
  const answers = new Map<string, AtRecipient[]>();
  for (const recipient of recipients) {
    const key = digitsOf(recipient.number);
    answers.set(key, [...(answers.get(key) ?? []), recipient]);
  }
  return group.map((sms): SubmitOutcome => {
    const answer = answers.get(digitsOf(sms.to))?.shift();
    if (!answer) return retryOf(sms, "Missing from Africa's Talking's answer");
    const code = Number(answer.statusCode);
    const status = knownStatus(answer.status, code);
    if (ACCEPTED_CODES.has(code)) {
      const messageId = typeof answer.messageId === 'string' ? answer.messageId : '';
      return {
        recipientKey: sms.recipientKey,
        outcome: 'accepted',
        // Accepted without a usable id: never offered again, and no report can match it.
        providerMessageId: messageId && messageId !== 'None' ? messageId : `unknown:${sms.recipientKey}`,
        providerStatus: status,
      };
    }
    // The account's balance or standing, not the recipient: the company's sends wait for it.
    if (ACCOUNT_CODES.has(code)) return retryOf(sms, status, 'account');
    if (isPermanentCode(code)) {
      return { recipientKey: sms.recipientKey, outcome: 'rejected', reason: status, providerStatus: status };
    }
    // 500/501 and codes we do not know: not taken over as far as we can tell.
    return retryOf(sms, `${status} (${code})`);
  });
}
