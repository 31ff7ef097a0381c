import { timingSafeEqual } from 'node:crypto';
import { CALLBACK_MESSAGES } from '@sms/contracts/callbacks/callback-urls';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import { AppError } from '../errors.ts';
import { sha256 } from '../lib/crypto.ts';
import { isWellFormedCallbackUrl } from '../modules/callbacks/callback-tokens.ts';
import type { DeliveryUpdate } from './providers/provider.ts';

export type DeliveryReportIntake = {
  /**
   * Resolves once the report's batch is committed to the inbox: nothing acknowledged is lost. With
   * `token` (a report posted to a callback URL) a wrong token rejects with the callback's 404.
   */
  submit(companyId: number, update: DeliveryUpdate, token?: string): Promise<void>;
  /** Stores what is queued and stops taking more. */
  close(): Promise<void>;
  /** Reports accepted and the batches they took (a batch is one transaction per company). */
  stats(): { reports: number; batches: number };
};

export type IntakeOptions = {
  maxBatch?: number;
  /** Batches stored at once: inbox inserts share no rows, so batches commit side by side. */
  concurrency?: number;
  /** Called after a batch of the company's reports was committed. */
  onAccepted?: (companyId: number) => void;
};

/** Measured in the sixth pass (docs/decisions/0014-delivery-report-intake.md). */
const DEFAULT_CONCURRENCY = 2;
/** How long the first report of a batch waits for others to join it. */
const MAX_WAIT_MS = 2;

type Pending = {
  companyId: number;
  update: DeliveryUpdate;
  token: string | undefined;
  resolve: () => void;
  reject: (error: Error) => void;
};

/**
 * Group commit for delivery reports: requests are queued, stored together (one statement per
 * company per batch), and each is answered only after its batch committed. Under load the batches
 * grow by themselves: reports that arrive while batches are being stored form the next one.
 */
export function createDeliveryReportIntake(db: Database, options: IntakeOptions = {}): DeliveryReportIntake {
  const maxBatch = options.maxBatch ?? 1000;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  let queue: Pending[] = [];
  let applying = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const idleWaiters: (() => void)[] = [];
  const counted = { reports: 0, batches: 0 };

  const applyBatch = async (batch: Pending[]) => {
    const byCompany = new Map<number, Pending[]>();
    for (const item of batch) {
      if (!isWellFormedCallbackUrl(item.companyId, item.token)) {
        item.reject(new AppError('not_found', CALLBACK_MESSAGES.invalidCallback));
        continue;
      }
      const list = byCompany.get(item.companyId);
      if (list) list.push(item);
      else byCompany.set(item.companyId, [item]);
    }
    for (const [companyId, items] of byCompany) {
      try {
        const updates = items.map((item) => item.update);
        const tokenHashes = items.map((item) => (item.token === undefined ? null : sha256(item.token)));
        const accepted = await acceptDeliveryReports(db, companyId, updates, tokenHashes);
        counted.batches++;
        let any = false;
        items.forEach((item, index) => {
          if (!accepted[index]) item.reject(new AppError('not_found', CALLBACK_MESSAGES.invalidCallback));
          else {
            any = true;
            counted.reports++;
            item.resolve();
          }
        });
        if (any) options.onAccepted?.(companyId);
      } catch (error) {
        for (const item of items) item.reject(error as Error);
      }
    }
  };

  const flush = () => {
    timer = undefined;
    while (queue.length > 0 && applying < concurrency) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      applying++;
      void applyBatch(batch).finally(() => {
        applying--;
        if (queue.length > 0) schedule();
        else if (applying === 0) for (const resolve of idleWaiters.splice(0)) resolve();
      });
    }
  };

  const schedule = () => {
    if (applying >= concurrency) return;
    if (queue.length >= maxBatch) {
      if (timer) clearTimeout(timer);
      flush();
    } else {
      timer ??= setTimeout(flush, MAX_WAIT_MS);
    }
  };

  return {
    submit(companyId, update, token) {
      if (closed) return Promise.reject(new Error('Delivery reports are no longer accepted: shutting down'));
      return new Promise<void>((resolve, reject) => {
        queue.push({ companyId, update, token, resolve, reject });
        schedule();
      });
    },
    stats: () => ({ ...counted }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      flush();
      if (applying > 0 || queue.length > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}

/**
 * Stores one batch of one company's reports in the inbox and returns per report whether it was
 * accepted: one that came to a callback URL (its token's SHA-256) only for the company's current
 * dlr token, whatever the company's status; one that came through no URL (an SMPP receipt) always.
 */
export async function acceptDeliveryReports(
  db: Database,
  companyId: number,
  updates: readonly DeliveryUpdate[],
  tokenHashes: readonly (Buffer | null)[],
) {
  return inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = tokenHashes.some((hash) => hash !== null)
      ? await sql<{
          hash: Buffer | null;
        }>`select current_callback_token_hash(${companyId}, 'dlr') as hash`.execute(trx)
      : { rows: [] };
    const valid = rows[0]?.hash ?? null;
    // Compared in constant time, as every callback token is (ARCHITECTURE.md).
    const accepted = tokenHashes.map(
      (hash) =>
        hash === null || (valid !== null && hash.length === valid.length && timingSafeEqual(hash, valid)),
    );
    const kept = updates.filter((_, index) => accepted[index]);
    if (kept.length === 0) return accepted;
    const phones = kept.map((update) => update.phone ?? null);
    await sql`
      insert into delivery_report_inbox (company_id, gateway_message_ids, statuses, provider_statuses, error_messages,
                                         reported_ats, recipient_phones)
      values (${companyId}, ${kept.map((u) => u.providerMessageId)}::text[], ${kept.map((u) => u.status)}::text[],
              ${kept.map((u) => u.providerStatus)}::text[], ${kept.map((u) => u.error)}::text[],
              ${kept.map((u) => u.at.toISOString())}::timestamptz[],
              -- Reports that name no number (most) store none.
              ${phones.some((phone) => phone !== null) ? phones : null}::text[])`.execute(trx);
    return accepted;
  });
}
