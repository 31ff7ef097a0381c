import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: Record<string, string>;
};

/** What the fake answers for one number: Africa's Talking's per-recipient statusCode and status. */
export type RecipientAnswer = { statusCode: number; status: string };

const SUCCESS: RecipientAnswer = { statusCode: 101, status: 'Success' };

/**
 * A local stand-in for Africa's Talking's messaging API, speaking its documented request and
 * answer (providers.md): POST /version1/messaging, form-encoded, `apiKey` header, JSON only with
 * `Accept: application/json`, 201 with one Recipients entry per number. Tests steer it per number
 * (`answers`) or replace the whole answer (`override`).
 */
export async function startFakeAfricasTalking(options: { apiKey: string; username: string }) {
  const requests: ReceivedRequest[] = [];
  const answers = new Map<string, RecipientAnswer | 'omit'>();
  let override: ((res: ServerResponse) => void) | null = null;
  let nextId = 1;
  /** The fake's ledger: how many times each number was taken over (a message id given). */
  const acceptedCounts = new Map<string, number>();
  /** Numbers taken over in requests whose answer was withheld (the client timed out on them). */
  const acceptedUnanswered: string[] = [];
  let withholdAnswers = false;
  const held = new Set<ServerResponse>();
  const stats = { abandonedByClient: 0 };

  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const form = Object.fromEntries(new URLSearchParams(raw));
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, form });
    if (override) return override(res);

    if (req.method !== 'POST' || req.url !== '/version1/messaging') {
      res.writeHead(404).end('Not Found');
      return;
    }
    if (req.headers.apikey !== options.apiKey || form.username !== options.username) {
      res.writeHead(401, { 'Content-Type': 'text/plain' }).end('The supplied authentication is invalid');
      return;
    }
    if (!form.to || !form.message) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('Must have to and message');
      return;
    }
    const recipients = form.to.split(',').flatMap((number) => {
      const answer = answers.get(number) ?? SUCCESS;
      if (answer === 'omit') return [];
      const accepted = answer.statusCode >= 100 && answer.statusCode <= 102;
      if (accepted) acceptedCounts.set(number, (acceptedCounts.get(number) ?? 0) + 1);
      if (accepted && withholdAnswers) acceptedUnanswered.push(number);
      return [
        {
          statusCode: answer.statusCode,
          number,
          status: answer.status,
          cost: accepted ? 'KES 0.8000' : '0',
          messageId: accepted ? `ATXid_${nextId++}` : 'None',
        },
      ];
    });
    const sent = recipients.filter((r) => r.statusCode <= 102).length;
    const body = {
      SMSMessageData: {
        Message: `Sent to ${sent}/${recipients.length} Total Cost: KES ${(sent * 0.8).toFixed(4)}`,
        Recipients: recipients,
      },
    };
    if (withholdAnswers) {
      // Taken over, and never answered: the client's time-out is all it learns.
      held.add(res);
      // The client gave up on it (its time-out), rather than the fake cutting it.
      res.on('close', () => {
        if (held.delete(res)) stats.abandonedByClient += 1;
      });
      return;
    }
    if (req.headers.accept !== 'application/json') {
      res.writeHead(201, { 'Content-Type': 'application/xml' }).end('<AfricasTalkingResponse/>');
      return;
    }
    res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    answers,
    acceptedCounts,
    acceptedUnanswered,
    /** Withheld requests the client closed itself (timed out). */
    stats,
    /** Takes messages over as usual but never answers the request (true), or answers again (false). */
    setWithholdAnswers(withhold: boolean) {
      // Requests already withheld stay unanswered until the client gives up on them: cutting them
      // would be a different fault (a connection lost after the request arrived).
      withholdAnswers = withhold;
    },
    /** Answers every request with this instead (an outage, a slow or broken answer); null restores. */
    setOverride(handler: ((res: ServerResponse) => void) | null) {
      override = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
