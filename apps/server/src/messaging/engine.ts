import { sql } from 'kysely';
import type pg from 'pg';
import type { MessagingConfig } from '../config.ts';
import { type ChannelListener, listenOnChannel } from '../db/channel-listener.ts';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import {
  dispatchBatch,
  type LaneCursor,
  type RetryPolicy,
  readSendPlan,
  type SendPlan,
  type SharedLanes,
} from './dispatch.ts';
import { FANOUT_SLICES, fanOutBatch } from './fan-out.ts';
import { resumeHeldSends } from './held-sends.ts';
import {
  adoptSendsWithoutJobs,
  dropExpiredPartitions,
  ensurePartitions,
  expireIdempotencyKeys,
  reapplyUnmatchedReports,
} from './maintenance.ts';
import type { ProviderRegistry } from './providers/registry.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { SEND_MESSAGE_JOB } from './queue/jobs.ts';
import { takeSendTokens } from './rate-window.ts';
import { SEND_STARTED_CHANNEL, startSend } from './send-jobs.ts';
import { settleSends } from './send-progress.ts';

export type MessagingEngine = {
  start(): Promise<void>;
  /** Stops taking jobs; lanes finish the batch in hand (or roll it back), then return. */
  stop(): Promise<void>;
  /** Lets idle lanes look for work now (a send was just started in this process). */
  wake(): void;
};

export type MessagingEngineOptions = {
  db: Database;
  queue: JobQueue;
  providers: ProviderRegistry;
  config: MessagingConfig;
  log: (level: 'info' | 'warn' | 'error', message: string, error?: unknown) => void;
  /** How long an idle lane sleeps before it looks for work again (a send is active: a retry may fall due). */
  idleMs?: number;
  /**
   * How long an idle lane sleeps while no send is active at all and a send's start is heard
   * (NOTIFY on SEND_STARTED_CHANNEL, from whichever process starts it): the look is then only a
   * safety net. Without a listening connection lanes look every idleMs.
   */
  quietMs?: number;
  /** Connection settings for the LISTEN connection (the pool's own); none, no listening. */
  listenConnection?: pg.ClientConfig;
  maintenanceIntervalMs?: number;
  unmatchedSweepIntervalMs?: number;
};

type LaneState = LaneCursor & { resetAt: number; shared: SharedLanes };

type ActiveSend = { companyId: number; messageId: number; state: 'fanout' | 'dispatch' };

const ACTIVE_SENDS_TTL_MS = 200;
/** How soon a held send goes on (or fails) once its company is active again. */
const HELD_SENDS_LOOK_EVERY_MS = 2000;
const SETTLE_EVERY_MS = 500;
const CURSOR_RESET_EVERY_MS = 1000;
/**
 * A lane with nothing ahead goes back to the blocks it stepped over (every second); back to the
 * send's first recipient only this often, as a safety net: that look walks every recipient already
 * handed over, and lanes that caught up with a running fan-out did it every second.
 */
const FULL_RESCAN_EVERY_MS = 15_000;
/** How many of a process's lanes are at one kind of work on each send. */
function lanesAtWork() {
  const lanes = new Map<number, number>();
  return {
    count: (messageId: number) => lanes.get(messageId) ?? 0,
    enter: (messageId: number) => lanes.set(messageId, (lanes.get(messageId) ?? 0) + 1),
    leave: (messageId: number) => {
      const left = (lanes.get(messageId) ?? 1) - 1;
      if (left > 0) lanes.set(messageId, left);
      else lanes.delete(messageId);
    },
  };
}

/**
 * The worker side of messaging: the send job's handler (a send starts at its time), lanes that
 * fan sends out and hand recipients over in batches (any number of lanes per process, any number
 * of processes on one database: they share work through row locks), and periodic upkeep.
 */
export function createMessagingEngine(options: MessagingEngineOptions): MessagingEngine {
  const { db, queue, providers, config, log } = options;
  const idleMs = options.idleMs ?? 200;
  const quietMs = options.quietMs ?? 5000;
  const policy: RetryPolicy = {
    maxAttempts: config.maxAttempts,
    baseDelayMs: config.retryBaseMs,
    maxDelayMs: 5 * 60_000,
  };
  let running = false;
  let lanes: Promise<void>[] = [];
  let timers: NodeJS.Timeout[] = [];
  let sleepers: (() => void)[] = [];
  let startListener: ChannelListener | undefined;
  const upkeep = new Set<Promise<unknown>>();

  let activeCache: { at: number; sends: ActiveSend[] } = { at: 0, sends: [] };
  let activeLoading: Promise<ActiveSend[]> | null = null;
  /** Counts forgetActive calls: a look that began before one of them is not cached. */
  let activeLooks = 0;
  /** Counts wake-ups: one that came while a lane looked (nobody asleep to wake) stops its next sleep. */
  let wakeUps = 0;
  const plans = new Map<number, Promise<SendPlan | null>>();
  const throttledUntil = new Map<number, number>();
  const fanningOut = lanesAtWork();
  const lastSettle = new Map<number, number>();
  const sharedLanes = new Map<number, SharedLanes>();

  const activeSends = () => {
    if (Date.now() - activeCache.at < ACTIVE_SENDS_TTL_MS) return Promise.resolve(activeCache.sends);
    if (activeLoading) return activeLoading;
    const looked = activeLooks;
    activeLoading = inTenantTransaction(db, platformScope, async (trx) => {
      const { rows } = await sql<{ company_id: number; message_id: number; state: 'fanout' | 'dispatch' }>`
        select company_id, message_id, state from message_sends
         where state in ('fanout', 'dispatch') order by message_id limit 1000`.execute(trx);
      return rows.map((row) => ({ companyId: row.company_id, messageId: row.message_id, state: row.state }));
    })
      .then((sends) => {
        // Forgotten while it was read (a send started meanwhile): not cached, the next look reads again.
        activeCache = { at: looked === activeLooks ? Date.now() : 0, sends };
        const live = new Set(sends.map((send) => send.messageId));
        for (const messageId of plans.keys()) if (!live.has(messageId)) plans.delete(messageId);
        for (const messageId of sharedLanes.keys()) if (!live.has(messageId)) sharedLanes.delete(messageId);
        return sends;
      })
      .finally(() => {
        activeLoading = null;
      });
    return activeLoading;
  };
  const forgetActive = () => {
    activeLooks++;
    activeCache = { at: 0, sends: activeCache.sends };
  };

  const planOf = (send: ActiveSend) => {
    let plan = plans.get(send.messageId);
    if (!plan) {
      plan = readSendPlan(db, send.companyId, send.messageId);
      plans.set(send.messageId, plan);
      plan.catch(() => plans.delete(send.messageId));
    }
    return plan;
  };

  const settle = async (send: ActiveSend, force = false) => {
    const last = lastSettle.get(send.messageId) ?? 0;
    if (!force && Date.now() - last < SETTLE_EVERY_MS) return;
    lastSettle.set(send.messageId, Date.now());
    await inTenantTransaction(db, companyScope(send.companyId), (trx) =>
      settleSends(trx, send.companyId, [send.messageId]),
    );
    forgetActive();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        sleepers = sleepers.filter((sleeper) => sleeper !== done);
        resolve();
      }
      sleepers.push(done);
    });

  const wake = () => {
    wakeUps++;
    forgetActive();
    for (const sleeper of [...sleepers]) sleeper();
  };

  /** One unit of work on a send; true when something moved. */
  const workOn = async (send: ActiveSend, cursors: Map<number, LaneState>) => {
    let worked = false;
    // As many lanes of a process fan a send out as it has slices (one step per slice at a time).
    if (send.state === 'fanout' && fanningOut.count(send.messageId) < FANOUT_SLICES) {
      fanningOut.enter(send.messageId);
      try {
        const result = await fanOutBatch(db, send.companyId, send.messageId, config.fanoutBatchSize);
        if (result !== 'busy') worked = true;
        if (result === 'finished') wake();
        // A lane that fans out keeps at it until its slices are done.
        if (result === 'progress' && config.workerLanes > 1) return true;
      } finally {
        fanningOut.leave(send.messageId);
      }
    }
    if ((throttledUntil.get(send.companyId) ?? 0) > Date.now()) return worked;
    // No lane hands a send over while its slices are written: a lane beside them took a core the
    // slices needed and stepped over rows they committed late. 1,000,000 recipients on 2 cores, back
    // to back: one lane beside wrote every row in 7.9 s and handed the last over at 20.8 s (36 ms of
    // CPU per 1,000); none, 5.3 s and 17.0-19.2 s (29-32 ms). See ADR 0011.
    if (send.state !== 'fanout') return (await handOver(send, cursors)) || worked;
    return worked;
  };

  /** One hand-over batch of a send; true when something moved. */
  const handOver = async (send: ActiveSend, cursors: Map<number, LaneState>) => {
    let worked = false;
    const plan = await planOf(send);
    if (!plan) return worked;
    const companyProvider = await providers.forCompany(send.companyId);
    let cursor = cursors.get(send.messageId);
    if (!cursor) {
      let shared = sharedLanes.get(send.messageId);
      if (!shared) {
        shared = { frontier: 0, held: new Set(), rescannedAt: Date.now() };
        sharedLanes.set(send.messageId, shared);
      }
      cursor = { cursor: 0, revisitFrom: null, revisitUntil: null, resetAt: Date.now(), shared };
      cursors.set(send.messageId, cursor);
    }
    const result = await dispatchBatch(db, plan, companyProvider, cursor, policy, (wanted) =>
      takeSendTokens(db, send.companyId, wanted, companyProvider.messagesPerSecond),
    );
    if (result.held) {
      forgetActive();
      return worked;
    }
    if (result.throttledForMs !== null) {
      throttledUntil.set(send.companyId, Date.now() + result.throttledForMs);
      return worked;
    }
    if (result.offered > 0) worked = true;
    if (result.claimed === 0 && cursor.cursor > 0 && Date.now() - cursor.resetAt > CURSOR_RESET_EVERY_MS) {
      // Rows behind the cursor may have been released by others (a rolled-back batch): look again.
      // One lane of the process does the full look back, for all of them.
      const rescan = Date.now() - cursor.shared.rescannedAt > FULL_RESCAN_EVERY_MS;
      const back = rescan ? 0 : cursor.revisitFrom;
      cursor.resetAt = Date.now();
      if (rescan) cursor.shared.rescannedAt = Date.now();
      cursor.revisitFrom = null;
      if (back !== null && back !== undefined && back < cursor.cursor) {
        cursor.revisitUntil = Math.max(cursor.revisitUntil ?? 0, cursor.cursor);
        cursor.cursor = back;
        return true;
      }
    }
    if (result.claimed < companyProvider.batchSize && send.state === 'dispatch')
      await settle(send, result.claimed > 0);
    return worked;
  };

  const runLane = async (index: number) => {
    const cursors = new Map<number, LaneState>();
    let turn = index;
    let failures = 0;
    while (running) {
      let worked = false;
      let anyActive = true;
      const wakeUpsBefore = wakeUps;
      try {
        const sends = await activeSends();
        anyActive = sends.length > 0;
        for (const messageId of cursors.keys())
          if (!sends.some((send) => send.messageId === messageId)) cursors.delete(messageId);
        for (let i = 0; i < sends.length && running; i++) {
          const send = sends[(turn + i) % sends.length];
          if (await workOn(send, cursors)) worked = true;
        }
        turn++;
        failures = 0;
      } catch (error) {
        failures++;
        log('error', 'messaging lane failed a step; retrying', error);
        forgetActive();
        await sleep(Math.min(5000, 100 * 2 ** failures));
        continue;
      }
      if (wakeUps !== wakeUpsBefore) continue;
      if (!worked && running && !anyActive && startListener?.listening) {
        await sleep(quietMs);
      } else if (!worked && running) {
        const throttleEnds = Math.min(
          ...[...throttledUntil.values()].filter((at) => at > Date.now()),
          Infinity,
        );
        await sleep(Math.max(5, Math.min(idleMs, throttleEnds - Date.now())));
      }
    }
  };

  const every = (ms: number, task: () => Promise<unknown>) => {
    const run = () => {
      if (!running) return;
      const work = task()
        .catch((error) => log('warn', 'messaging upkeep failed', error))
        .finally(() => upkeep.delete(work));
      upkeep.add(work);
    };
    timers.push(setInterval(run, ms));
    return run;
  };

  const sweepSettles = async () => {
    const sends = await activeSends();
    for (const send of sends) if (send.state === 'dispatch') await settle(send, true);
  };

  const maintain = async () => {
    await ensurePartitions(db);
    await dropExpiredPartitions(db, config.retentionMonths);
    await expireIdempotencyKeys(db);
    if ((await adoptSendsWithoutJobs(db, queue)) > 0) log('info', 'gave queue jobs to sends that had none');
  };

  return {
    async start() {
      if (running) return;
      running = true;
      await maintain().catch((error) => log('warn', 'messaging upkeep failed', error));
      if (options.listenConnection)
        startListener = await listenOnChannel(options.listenConnection, SEND_STARTED_CHANNEL, {
          onNotification: wake,
          // A send started while nobody listened is found by this look.
          onListening: wake,
          onLost: (error, retryInMs) =>
            log(
              'warn',
              `messaging lanes have no LISTEN connection; looking every ${idleMs} ms, trying again in ${retryInMs} ms`,
              error,
            ),
        });
      await queue.work(SEND_MESSAGE_JOB, { concurrency: 4 }, async (payload, job) => {
        if (await startSend(db, payload.companyId, payload.messageId, job.id)) wake();
      });
      lanes = Array.from({ length: config.workerLanes }, (_, index) => runLane(index));
      every(options.maintenanceIntervalMs ?? 30_000, maintain);
      every(options.unmatchedSweepIntervalMs ?? 2000, () => reapplyUnmatchedReports(db));
      every(5000, sweepSettles);
      every(HELD_SENDS_LOOK_EVERY_MS, async () => {
        if ((await resumeHeldSends(db, config.sendValidityHours)) > 0) wake();
      });
    },
    async stop() {
      if (!running) return;
      running = false;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      wake();
      await queue.stopWorking(10_000);
      await Promise.all(lanes);
      await Promise.all([...upkeep]);
      await startListener?.close();
      startListener = undefined;
      lanes = [];
    },
    wake,
  };
}
