import {
  PLAN_LIMIT_MESSAGES,
  resolvePlanLimits,
  type TPlanLimits,
} from '@sms/contracts/plans/plan-catalogue';
import type { Executor } from '../../db/database.ts';
import { AppError, notFound } from '../../errors.ts';
import * as repo from './plan-limits.repository.ts';

type CompanyPlanRow = NonNullable<Awaited<ReturnType<typeof repo.findCompanyPlan>>>;

function limitsOf(row: CompanyPlanRow): TPlanLimits {
  return resolvePlanLimits(row.plan, {
    messagesLimit: row.messages_limit,
    subscribersLimit: row.subscribers_limit,
    servicesLimit: row.services_limit,
  });
}

/** The limits the company works under (its own, else its plan's): what the server enforces and the dashboard shows. */
export async function findCompanyLimits(db: Executor, companyId: number): Promise<TPlanLimits> {
  const row = await repo.findCompanyPlan(db, companyId);
  if (!row) throw notFound('Company');
  return limitsOf(row);
}

/** 403 like the engine's monthly limit: the plan forbids it, whoever asks. */
const limitReached = (message: string, detail: string) =>
  new AppError('forbidden', message, { details: [detail] });

/** Refuses a new service once the company has as many as its services limit. Call inside the creating transaction. */
export async function ensureServiceRoom(trx: Executor, companyId: number) {
  const row = await repo.lockCompanyPlan(trx, companyId);
  if (!row) throw notFound('Company');
  const { servicesLimit } = limitsOf(row);
  if ((await repo.countServices(trx, companyId)) >= servicesLimit)
    throw limitReached(
      PLAN_LIMIT_MESSAGES.servicesLimitReached(servicesLimit),
      `servicesLimit: ${servicesLimit}`,
    );
}

/**
 * How many more active subscribers the company may have, with its row locked until the
 * transaction ends (so concurrent subscribes and imports of one company add up correctly).
 */
export async function lockSubscriberRoom(trx: Executor, companyId: number) {
  const row = await repo.lockCompanyPlan(trx, companyId);
  if (!row) throw notFound('Company');
  const { subscribersLimit } = limitsOf(row);
  const active = await repo.countActiveSubscribers(trx, companyId);
  return { limit: subscribersLimit, room: Math.max(0, subscribersLimit - active) };
}

/**
 * Whether this number may be an active subscriber: there is room, or it already is one (it takes
 * no new room). Locks the company row like lockSubscriberRoom.
 */
export async function hasSubscriberRoom(trx: Executor, companyId: number, msisdn: string) {
  const { limit, room } = await lockSubscriberRoom(trx, companyId);
  if (room > 0) return { limit, allowed: true };
  const free = await repo.findNumbersTakingNoRoom(trx, companyId, [msisdn]);
  return { limit, allowed: free.has(msisdn) };
}

/** Refuses to make this number a new active subscriber past the limit; an already active one takes no room. */
export async function ensureSubscriberRoom(trx: Executor, companyId: number, msisdn: string) {
  const { limit, allowed } = await hasSubscriberRoom(trx, companyId, msisdn);
  if (!allowed)
    throw limitReached(PLAN_LIMIT_MESSAGES.subscribersLimitReached(limit), `subscribersLimit: ${limit}`);
}
