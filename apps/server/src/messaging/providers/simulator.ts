import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import { type OutboundSms, retryEach, retryOf, type SmsProvider, type SubmitOutcome } from './provider.ts';

export type SimulatorOptions = {
  /** Shares of recipients refused for good at hand-over, refused for now, and reported Failed. */
  rejectRate: number;
  retryRate: number;
  failRate: number;
  /** How long after acceptance the delivery report is posted. */
  deliveryDelayMs: number;
  /** Delivery reports in flight at once. */
  dlrConcurrency: number;
  maxBatchSize: number;
  /** Records every acceptance, so that it is remembered across restarts as a real provider would. */
  ledgerFile?: string;
  rememberedRecipients?: number;
};

/**
 * The most recently accepted recipient keys a simulator remembers: a re-offer comes within minutes
 * (a worker died mid-batch), and a set of every key would grow for as long as the process runs.
 * A forgotten key is accepted again, but its report job's id (from the key) is the first one's.
 */
export const REMEMBERED_RECIPIENTS = 1_000_000;

const FAILURE_REASONS = ['DeliveryFailure', 'AbsentSubscriber', 'UserInBlackList'];

/** `reoffers`: offers of a recipient already accepted, answered with the same id, not accepted again. */
const NO_STATS = { accepted: 0, reoffers: 0, rejected: 0, retried: 0, reportsPosted: 0, reportsFailed: 0 };
export type SimulatorStats = typeof NO_STATS;

/** Where the simulator schedules its delivery reports: a simulator-report job, committed when this resolves. */
export type ScheduleReports = (
  payload: SimulatedReportBatch,
  options: { key: string; startAfter: Date },
) => Promise<unknown>;

/** An accepted batch's reports as its job keeps them: keys, numbers, and which ones failed. */
export type SimulatedReportBatch = { companyId: number; keys: string[]; phones: string[]; failed: number[] };

/** The reports of a batch, each with its provider id and, for a failed one, a reason of its own. */
export function reportsOf(batch: SimulatedReportBatch): SimulatedReport[] {
  const failed = new Set(batch.failed);
  return batch.keys.map((key, index) => ({
    id: simulatorMessageId(key),
    phone: batch.phones[index] ?? '',
    failed: failed.has(index),
    reason: FAILURE_REASONS[Number.parseInt(key, 10) % FAILURE_REASONS.length] ?? FAILURE_REASONS[0],
  }));
}

export type SimulatorProvider = SmsProvider & {
  readonly kind: 'simulator';
  stats(): SimulatorStats;
  /** Posts due delivery reports to the company's DLR callback URL (the simulator-report job). */
  postReports(reports: readonly SimulatedReport[], signal?: AbortSignal): Promise<void>;
};

export type SimulatedReport = { id: string; phone: string; failed: boolean; reason: string };

/** The provider id the simulator gives a recipient key: the same key always gets the same id. */
export const simulatorMessageId = (recipientKey: string) => `SIM-${recipientKey}`;

/** A set of at most `limit` keys, the last added: the oldest is forgotten first. */
function recentKeys(limit: number) {
  const keys = new Set<string>();
  return {
    has: (key: string) => keys.has(key),
    add(key: string) {
      keys.add(key);
      // A Set iterates in insertion order: its first key is the oldest.
      if (keys.size > limit) keys.delete(keys.values().next().value as string);
    },
  };
}

/**
 * The built-in provider: accepts batches at once, honours the recipient key as an idempotency key,
 * and posts Africa's-Talking-shaped delivery reports to the company's own DLR callback URL, so the
 * whole loop runs as against a real provider. The reports are a delayed job (SIMULATOR_REPORT_JOB)
 * stored before the batch is answered, as a provider's acceptance is durable.
 */
export function createSimulatorProvider(
  options: SimulatorOptions,
  context: { companyId: number; dlrUrl: string | null; scheduleReports: ScheduleReports },
  log: (message: string) => void = () => {},
): SimulatorProvider {
  const accepted = recentKeys(options.rememberedRecipients ?? REMEMBERED_RECIPIENTS);
  const stats = { ...NO_STATS };
  if (options.ledgerFile && existsSync(options.ledgerFile)) {
    for (const line of readFileSync(options.ledgerFile, 'utf8').split('\n')) {
      if (line.startsWith('A ')) accepted.add(line.slice(2));
    }
  }

  const url = context.dlrUrl;
  const closing = new AbortController();
  let closed = false;
  let warnedNoUrl = false;

  /** Posts one report, trying again a few times; false when it was not taken (the job's retry posts it). */
  async function postReport(report: SimulatedReport, signal?: AbortSignal) {
    if (!url) return true;
    const body = new URLSearchParams({
      id: report.id,
      status: report.failed ? 'Failed' : 'Success',
      phoneNumber: report.phone,
      networkCode: '63902',
      ...(report.failed ? { failureReason: report.reason } : {}),
    }).toString();
    for (let attempt = 1; attempt <= 5 && !closed && !signal?.aborted; attempt++) {
      const status = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.any([closing.signal, AbortSignal.timeout(10_000)]),
      }).then(
        async (response) => {
          await response.body?.cancel();
          return response.status;
        },
        () => 0,
      );
      if (status >= 200 && status < 300) {
        stats.reportsPosted++;
        return true;
      }
      // 4xx other than throttling will not get better: dropped, as a provider would.
      if (status >= 400 && status < 500 && status !== 429) {
        stats.reportsFailed++;
        return true;
      }
      await pause(200 * attempt);
    }
    stats.reportsFailed++;
    return false;
  }

  return {
    kind: 'simulator',
    maxBatchSize: options.maxBatchSize,
    async sendBatch(messages: OutboundSms[]) {
      const outcomes: SubmitOutcome[] = [];
      const phones: string[] = [];
      const failedAt: number[] = [];
      const newlyAccepted: string[] = [];
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
          outcomes.push(retryOf(sms, 'Simulated gateway error'));
        } else if (roll < options.retryRate + options.rejectRate) {
          stats.rejected++;
          outcomes.push({
            recipientKey: sms.recipientKey,
            outcome: 'rejected',
            reason: 'InvalidPhoneNumber',
            providerStatus: 'InvalidPhoneNumber',
          });
        } else {
          newlyAccepted.push(sms.recipientKey);
          ledger.push(`A ${sms.recipientKey}`);
          outcomes.push({
            recipientKey: sms.recipientKey,
            outcome: 'accepted',
            providerMessageId,
            providerStatus: 'Success',
          });
          if (Math.random() < options.failRate) failedAt.push(newlyAccepted.length - 1);
          phones.push(sms.to);
        }
      }
      // Durable before the answer, as a provider's acceptance is: the reports' job is committed
      // first, and a batch whose job could not be stored is not accepted (the engine offers it again).
      if (newlyAccepted.length > 0 && url) {
        try {
          await context.scheduleReports(
            { companyId: context.companyId, keys: newlyAccepted, phones, failed: failedAt },
            {
              key: `${context.companyId}:${newlyAccepted[0]}`,
              startAfter: new Date(Date.now() + options.deliveryDelayMs),
            },
          );
        } catch (error) {
          return retryEach(messages, `Simulated gateway error: ${(error as Error).message}`);
        }
      } else if (newlyAccepted.length > 0 && !warnedNoUrl) {
        warnedNoUrl = true;
        log('simulator: the company has no DLR callback URL; delivery reports are not posted');
      }
      for (const key of newlyAccepted) accepted.add(key);
      stats.accepted += newlyAccepted.length;
      if (options.ledgerFile && ledger.length > 0)
        appendFileSync(options.ledgerFile, `${ledger.join('\n')}\n`);
      return outcomes;
    },
    async postReports(reports, signal) {
      let next = 0;
      let lost = 0;
      const poster = async () => {
        while (next < reports.length && !closed && !signal?.aborted) {
          const report = reports[next++];
          if (!(await postReport(report, signal))) lost++;
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.dlrConcurrency, reports.length) }, poster));
      if (next < reports.length || lost > 0)
        // Posted again by the job's retry: a report taken twice changes nothing.
        throw new Error(`${reports.length - next + lost} simulated delivery reports were not taken`);
    },
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
      closing.abort();
    },
  };
}

/** The simulator-report job: posted only while the company's provider is still the simulator that took them. */
export async function postSimulatedReports(
  provider: SmsProvider,
  reports: readonly SimulatedReport[],
  signal?: AbortSignal,
) {
  if (provider.kind !== 'simulator' || !('postReports' in provider)) return;
  await (provider as SimulatorProvider).postReports(reports, signal);
}
