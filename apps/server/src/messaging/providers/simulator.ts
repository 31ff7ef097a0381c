import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { OutboundSms, SmsProvider, SubmitOutcome } from './provider.ts';

export type SimulatorOptions = {
  /** Share of recipients refused for good at hand-over (rejected, "InvalidPhoneNumber"). */
  rejectRate: number;
  /** Share refused for now (a transient error the engine retries with backoff). */
  retryRate: number;
  /** Share of accepted recipients whose delivery report says Failed; the rest say Success. */
  failRate: number;
  /** How long after acceptance the delivery report is posted. */
  deliveryDelayMs: number;
  /** Delivery reports in flight at once. */
  dlrConcurrency: number;
  maxBatchSize: number;
  /**
   * A file that records every acceptance (and re-offer), so the simulator remembers what it
   * accepted across restarts of the process it runs in, as a real provider would. Off by default.
   */
  ledgerFile?: string;
};

export const DEFAULT_SIMULATOR_OPTIONS: SimulatorOptions = {
  rejectRate: 0,
  retryRate: 0,
  failRate: 0.02,
  deliveryDelayMs: 1000,
  dlrConcurrency: 32,
  maxBatchSize: 1000,
};

const FAILURE_REASONS = ['DeliveryFailure', 'AbsentSubscriber', 'UserInBlackList'];

export type SimulatorStats = {
  /** Distinct recipients accepted (by recipient key). */
  accepted: number;
  /** Offers of a recipient already accepted: answered with the same id, not accepted again. */
  reoffers: number;
  rejected: number;
  retried: number;
  reportsPosted: number;
  reportsFailed: number;
};

export type SimulatorProvider = SmsProvider & {
  stats(): SimulatorStats;
  /** Resolves when every delivery report due so far has been posted (or given up). */
  drained(): Promise<void>;
};

type PendingReport = { id: string; phone: string; failed: boolean; reason: string };
type ReportChunk = { dueAt: number; reports: PendingReport[]; next: number };

/** The provider id the simulator gives a recipient key: the same key always gets the same id. */
export const simulatorMessageId = (recipientKey: string) => `SIM-${recipientKey}`;

/**
 * The built-in provider: accepts batches at once, honours the recipient key as an idempotency key
 * (a re-offered recipient gets its first id back and is counted, not accepted again), and posts
 * Africa's-Talking-shaped delivery reports to the company's own DLR callback URL over HTTP, so the
 * whole loop runs as it does against a real provider.
 */
export function createSimulatorProvider(
  options: SimulatorOptions,
  dlrUrl: string | null,
  log: (message: string) => void = () => {},
): SimulatorProvider {
  const accepted = new Set<string>();
  const stats: SimulatorStats = {
    accepted: 0,
    reoffers: 0,
    rejected: 0,
    retried: 0,
    reportsPosted: 0,
    reportsFailed: 0,
  };
  if (options.ledgerFile && existsSync(options.ledgerFile)) {
    for (const line of readFileSync(options.ledgerFile, 'utf8').split('\n')) {
      if (line.startsWith('A ')) accepted.add(line.slice(2));
    }
  }

  const chunks: ReportChunk[] = [];
  const url = dlrUrl ? new URL(dlrUrl) : null;
  const agent = url
    ? new (url.protocol === 'https:' ? https.Agent : http.Agent)({
        keepAlive: true,
        maxSockets: options.dlrConcurrency,
      })
    : null;
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let drainWaiters: (() => void)[] = [];
  let warnedNoUrl = false;

  const nextDue = () => {
    while (chunks.length > 0 && chunks[0].next >= chunks[0].reports.length) chunks.shift();
    return chunks[0];
  };

  const settleDrain = () => {
    if (inFlight === 0 && !nextDue()) {
      const waiters = drainWaiters;
      drainWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };

  const pump = () => {
    timer = undefined;
    if (closed) return;
    while (inFlight < options.dlrConcurrency) {
      const chunk = nextDue();
      if (!chunk) break;
      const wait = chunk.dueAt - Date.now();
      if (wait > 0) {
        timer ??= setTimeout(pump, wait);
        break;
      }
      const report = chunk.reports[chunk.next++];
      inFlight++;
      void postReport(report).finally(() => {
        inFlight--;
        pump();
        settleDrain();
      });
    }
    settleDrain();
  };

  async function postReport(report: PendingReport) {
    if (!url || !agent) return;
    const body = new URLSearchParams({
      id: report.id,
      status: report.failed ? 'Failed' : 'Success',
      phoneNumber: report.phone,
      networkCode: '63902',
      ...(report.failed ? { failureReason: report.reason } : {}),
    }).toString();
    for (let attempt = 1; attempt <= 5 && !closed; attempt++) {
      const status = await postForm(url, agent, body).catch(() => 0);
      if (status >= 200 && status < 300) {
        stats.reportsPosted++;
        return;
      }
      // 4xx other than throttling will not get better.
      if (status >= 400 && status < 500 && status !== 429) break;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
    stats.reportsFailed++;
  }

  const queueReports = (reports: PendingReport[]) => {
    if (reports.length === 0) return;
    if (!url) {
      if (!warnedNoUrl)
        log('simulator: the company has no DLR callback URL; delivery reports are not posted');
      warnedNoUrl = true;
      return;
    }
    chunks.push({ dueAt: Date.now() + options.deliveryDelayMs, reports, next: 0 });
    if (!timer && inFlight < options.dlrConcurrency) pump();
  };

  return {
    kind: 'simulator',
    maxBatchSize: options.maxBatchSize,
    async sendBatch(messages: OutboundSms[]) {
      const outcomes: SubmitOutcome[] = [];
      const reports: PendingReport[] = [];
      const ledger: string[] = [];
      for (const sms of messages) {
        const providerMessageId = simulatorMessageId(sms.recipientKey);
        if (accepted.has(sms.recipientKey)) {
          stats.reoffers++;
          ledger.push(`R ${sms.recipientKey}`);
          outcomes.push({ recipientKey: sms.recipientKey, outcome: 'accepted', providerMessageId });
          continue;
        }
        const roll = Math.random();
        if (roll < options.retryRate) {
          stats.retried++;
          outcomes.push({
            recipientKey: sms.recipientKey,
            outcome: 'retry',
            reason: 'Simulated gateway error',
          });
        } else if (roll < options.retryRate + options.rejectRate) {
          stats.rejected++;
          outcomes.push({
            recipientKey: sms.recipientKey,
            outcome: 'rejected',
            reason: 'InvalidPhoneNumber',
            providerStatus: 'InvalidPhoneNumber',
          });
        } else {
          accepted.add(sms.recipientKey);
          stats.accepted++;
          ledger.push(`A ${sms.recipientKey}`);
          outcomes.push({
            recipientKey: sms.recipientKey,
            outcome: 'accepted',
            providerMessageId,
            providerStatus: 'Success',
          });
          const failed = Math.random() < options.failRate;
          reports.push({
            id: providerMessageId,
            phone: sms.to,
            failed,
            reason: FAILURE_REASONS[Math.floor(Math.random() * FAILURE_REASONS.length)],
          });
        }
      }
      // Durable before the answer, as a provider's acceptance is.
      if (options.ledgerFile && ledger.length > 0)
        appendFileSync(options.ledgerFile, `${ledger.join('\n')}\n`);
      queueReports(reports);
      return outcomes;
    },
    stats: () => ({ ...stats }),
    drained: () =>
      new Promise<void>((resolve) => {
        drainWaiters.push(resolve);
        settleDrain();
      }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      agent?.destroy();
      const waiters = drainWaiters;
      drainWaiters = [];
      for (const resolve of waiters) resolve();
    },
  };
}

function postForm(url: URL, agent: http.Agent, body: string) {
  return new Promise<number>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
        timeout: 10_000,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end(body);
  });
}
