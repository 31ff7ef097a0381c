import type { OutboundSms, SmsProvider, SubmitOutcome } from './provider.ts';

/** Where Africa's Talking answers (providers.md); a custom base URL points tests at a local fake. */
export const AFRICASTALKING_BASE_URLS = {
  live: 'https://api.africastalking.com',
  sandbox: 'https://api.sandbox.africastalking.com',
} as const;

export type AfricasTalkingConfig = {
  /** Without a trailing path: `{baseUrl}/version1/messaging` is called. */
  baseUrl: string;
  username: string;
  apiKey: string;
  /** The company's sender id or short code, used when a message carries no `from` of its own. */
  senderId?: string | null;
  /** Recipients per request (Africa's Talking documents no limit; 100 is our assumption). */
  batchSize?: number;
  /** Time-out of one HTTP call, in milliseconds. */
  timeoutMs?: number;
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

type AtRecipient = { statusCode?: unknown; number?: unknown; status?: unknown; messageId?: unknown };

/**
 * Africa's Talking over its HTTP messaging API. A batch is split into requests of identical text
 * and sender (a request has one `message` for many `to`), each answered per recipient.
 * The answer of the request as a whole never rejects anyone: a refused key, a 5xx, a time-out or an
 * unreadable answer leaves every recipient of that request to be offered again ('retry'), so a
 * wrong setting cannot burn through a send; only a recipient's own status code rejects it.
 */
export function createAfricasTalkingProvider(config: AfricasTalkingConfig): SmsProvider {
  const batchSize = Math.max(1, config.batchSize ?? AFRICASTALKING_DEFAULT_BATCH_SIZE);
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const endpoint = `${config.baseUrl.replace(/\/+$/, '')}/version1/messaging`;

  async function sendRequest(group: OutboundSms[]): Promise<SubmitOutcome[]> {
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

    let response: Response;
    let body: string;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          apiKey: config.apiKey,
          Accept: 'application/json',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: form.toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      body = await response.text();
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      return retryAll(
        group,
        timedOut
          ? `Africa's Talking did not answer within ${timeoutMs} ms`
          : `Africa's Talking could not be reached: ${(error as Error).message}`,
      );
    }

    if (response.status === 401 || response.status === 403) {
      return retryAll(
        group,
        `Africa's Talking refused the credentials (HTTP ${response.status}${excerpt(body)}): check the company's API key and API username`,
      );
    }
    if (!response.ok) {
      return retryAll(group, `Africa's Talking answered HTTP ${response.status}${excerpt(body)}`);
    }
    const recipients = readRecipients(body);
    if (!recipients) {
      return retryAll(group, `Africa's Talking answered HTTP ${response.status} with an unreadable body`);
    }
    return mapRecipients(group, recipients);
  }

  return {
    kind: 'africastalking',
    maxBatchSize: batchSize,
    async sendBatch(messages) {
      const outcomes: SubmitOutcome[] = [];
      for (const group of groupBySameText(messages, batchSize)) {
        outcomes.push(...(await sendRequest(group)));
      }
      return outcomes;
    },
    async close() {},
  };
}

/** Requests of at most `size` recipients that share text and sender, in the batch's order. */
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

function retryAll(group: OutboundSms[], reason: string): SubmitOutcome[] {
  return group.map((sms) => ({ recipientKey: sms.recipientKey, outcome: 'retry', reason }));
}

function excerpt(body: string) {
  const text = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return text ? `: ${text}` : '';
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
    if (!answer) {
      return {
        recipientKey: sms.recipientKey,
        outcome: 'retry',
        reason: "Missing from Africa's Talking's answer",
      };
    }
    const code = Number(answer.statusCode);
    const status = typeof answer.status === 'string' && answer.status ? answer.status : `status ${code}`;
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
    if (isPermanentCode(code)) {
      return { recipientKey: sms.recipientKey, outcome: 'rejected', reason: status, providerStatus: status };
    }
    // 500/501 and codes we do not know: not taken over as far as we can tell.
    return { recipientKey: sms.recipientKey, outcome: 'retry', reason: `${status} (${code})` };
  });
}
