import type { TCompany, TCompanyForm, TCompanyPlan, TCompanyStatus } from '@sms/contracts/admin/company';
import { COMPANY_MESSAGES } from '@sms/contracts/admin/company';
import { companyHasDataMessage } from '@sms/contracts/admin/delete-company';
import type { TCompanyStats } from '@sms/contracts/admin/list-companies';
import { totalPages } from '@sms/contracts/common/pagination';
import { resolvePlanLimits } from '@sms/contracts/plans/plan-catalogue';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import type { CompanyUpdate } from '../../db/schema.ts';
import { AppError, conflict, notFound } from '../../errors.ts';
import { createPublicAddressPolicy } from '../../lib/public-address.ts';
import type { RequestContext } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { regenerateCallbackTokens } from '../callbacks/callback-tokens.ts';
import {
  auditedProvider,
  checkProviderAddresses,
  planProviderChange,
  presentProvider,
} from './companies.provider.ts';
import * as repo from './companies.repository.ts';

export function presentCompany(row: repo.CompanyWithCounts, encryptionKey: Buffer): TCompany {
  const ownLimits = {
    messagesLimit: row.messages_limit,
    subscribersLimit: row.subscribers_limit,
    servicesLimit: row.services_limit,
  };
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phoneNumber: row.phone_number,
    address: row.address,
    plan: row.plan as TCompanyPlan,
    status: row.status as TCompanyStatus,
    ...presentProvider(row.sms_provider, row.provider_rows ?? [], encryptionKey),
    providerFailure: row.provider_failing_since
      ? { since: row.provider_failing_since.toISOString(), reason: row.provider_failure ?? '' }
      : null,
    packageName: row.package_name,
    packageExpiresAt: row.package_expires_at?.toISOString() ?? null,
    billingStatus: row.billing_status,
    limits: resolvePlanLimits(row.plan, ownLimits),
    ownLimits,
    userCount: Number(row.user_count ?? 0),
    serviceCount: Number(row.service_count ?? 0),
    subscriberCount: Number(row.subscriber_count),
    lastActive: row.last_active_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export async function listCompanies(
  deps: AppDeps,
  ctx: RequestContext,
  query: { page: number; limit: number; searchTerm?: string; status?: TCompanyStatus },
) {
  const { rows, totalItems, counts } = await inActorTransaction(deps.db, ctx, async (trx) => ({
    ...(await repo.listCompanies(
      trx,
      { searchTerm: query.searchTerm, status: query.status },
      { limit: query.limit, offset: (query.page - 1) * query.limit },
    )),
    counts: await repo.countCompaniesByStatus(trx),
  }));
  const stats: TCompanyStats = {
    totalCompanies: Object.values(counts.byStatus).reduce((sum, n) => sum + n, 0),
    activeCompanies: counts.byStatus.active ?? 0,
    pendingCompanies: counts.byStatus.pending ?? 0,
    suspendedCompanies: counts.byStatus.suspended ?? 0,
    totalUsers: counts.totalUsers,
  };
  return {
    companies: rows.map((row) => presentCompany(row, deps.keys.encryption)),
    pagination: { currentPage: query.page, totalPages: totalPages(totalItems, query.limit), totalItems },
    stats,
  };
}

/**
 * The company's own columns a saved form writes; provider settings are written apart. A limit
 * left out keeps the company's; null gives it back to the plan.
 */
function companyColumns(form: TCompanyForm) {
  return {
    name: form.name,
    email: form.email,
    phone_number: form.phoneNumber,
    address: form.address,
    plan: form.plan,
    status: form.status,
    ...(form.messagesLimit !== undefined && { messages_limit: form.messagesLimit }),
    ...(form.subscribersLimit !== undefined && { subscribers_limit: form.subscribersLimit }),
    ...(form.servicesLimit !== undefined && { services_limit: form.servicesLimit }),
  } satisfies CompanyUpdate;
}

/** The limits a save changed, as they were and are now (null: the plan's), for the audit trail. */
function changedLimits(before: repo.CompanyWithCounts, form: TCompanyForm) {
  const columns = {
    messagesLimit: before.messages_limit,
    subscribersLimit: before.subscribers_limit,
    servicesLimit: before.services_limit,
  };
  const changes = Object.entries(columns)
    .filter(([field, was]) => {
      const now = form[field as keyof typeof columns];
      return now !== undefined && now !== was;
    })
    .map(([field, was]) => [field, { from: was, to: form[field as keyof typeof columns] }]);
  return changes.length > 0 ? { limitChanges: Object.fromEntries(changes) } : {};
}

/** The audit details of a save: field values, but for credentials only whether they changed. */
function auditedFields(form: TCompanyForm) {
  const { apiKey: _apiKey, apiSecret: _apiSecret, provider: _provider, ...rest } = form;
  return { ...rest, ...auditedProvider(form) };
}

/** Writes the provider settings the form changes and returns the kind in use afterwards. */
async function saveProvider(
  trx: Executor,
  companyId: number,
  smsProvider: string,
  form: TCompanyForm,
  key: Buffer,
) {
  const rows = await repo.readProviderRows(trx, companyId);
  const change = planProviderChange(smsProvider, rows, form, key);
  for (const write of change.writes) {
    await repo.writeProviderSettings(trx, companyId, write.settings, write.secret, key);
  }
  return change.kind;
}

/** Before the transaction: the check may wait on DNS, which must not hold a connection. */
const checkAddresses = (deps: AppDeps, form: TCompanyForm) =>
  checkProviderAddresses(
    form.provider,
    createPublicAddressPolicy(deps.config.messaging.providerAllowedPrivateHosts),
  );

export async function createCompany(deps: AppDeps, ctx: RequestContext, form: TCompanyForm) {
  const key = deps.keys.encryption;
  await checkAddresses(deps, form);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const companyId = await repo.insertCompany(trx, companyColumns(form));
    const kind = await saveProvider(trx, companyId, 'simulator', form, key);
    await repo.updateCompany(trx, companyId, { sms_provider: kind });
    // A new company can be wired to its provider at once: the callback modal shows real URLs.
    await regenerateCallbackTokens(trx, companyId, key);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'CREATE',
      entity: 'COMPANY',
      entityId: companyId,
      companyId,
      details: auditedFields(form),
    });
    return presentCompany((await repo.findCompanyById(trx, companyId))!, key);
  });
}

export async function updateCompany(deps: AppDeps, ctx: RequestContext, id: number, form: TCompanyForm) {
  const key = deps.keys.encryption;
  await checkAddresses(deps, form);
  const company = await inActorTransaction(deps.db, ctx, async (trx) => {
    const before = await repo.findCompanyById(trx, id);
    if (!before) throw notFound('Company');
    const kind = await saveProvider(trx, id, before.sms_provider, form, key);
    await repo.updateCompany(trx, id, { ...companyColumns(form), sms_provider: kind });
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'UPDATE',
      entity: 'COMPANY',
      entityId: id,
      companyId: id,
      details: { ...auditedFields(form), previousStatus: before.status, ...changedLimits(before, form) },
    });
    return presentCompany((await repo.findCompanyById(trx, id))!, key);
  });
  // After the commit, so the worker cannot read the old settings again and keep them.
  if (form.provider || form.apiKey !== undefined || form.apiSecret !== undefined) {
    deps.messaging?.providerSettingsChanged(id);
  }
  return company;
}

const TRANSITIONS = {
  activate: {
    from: 'pending',
    to: 'active',
    action: 'APPROVE',
    refusal: COMPANY_MESSAGES.onlyPendingActivate,
  },
  suspend: {
    from: 'active',
    to: 'suspended',
    action: 'SUSPEND',
    refusal: COMPANY_MESSAGES.onlyActiveSuspend,
  },
} as const;

export async function changeCompanyStatus(
  deps: AppDeps,
  ctx: RequestContext,
  id: number,
  change: keyof typeof TRANSITIONS,
) {
  const transition = TRANSITIONS[change];
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const changed = await repo.changeCompanyStatus(trx, id, transition.from, transition.to);
    if (!changed) {
      if (!(await repo.findCompanyById(trx, id))) throw notFound('Company');
      throw conflict(transition.refusal);
    }
    await recordAudit(trx, auditSourceOf(ctx), {
      action: transition.action,
      entity: 'COMPANY',
      entityId: id,
      companyId: id,
      details: { from: transition.from, to: transition.to },
    });
    return presentCompany((await repo.findCompanyById(trx, id))!, deps.keys.encryption);
  });
}

/**
 * A company that still holds users, services, subscribers or messages is only deleted when the
 * request confirms the cascade; everything it owns then goes with it in one transaction.
 */
export async function deleteCompany(deps: AppDeps, ctx: RequestContext, id: number, cascade: boolean) {
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const company = await repo.findCompanyById(trx, id);
    if (!company) throw notFound('Company');
    const removed = (await repo.countCompanyData(trx, id))!;
    const hasData = Object.values(removed).some((count) => count > 0);
    if (hasData && !cascade) {
      throw new AppError('conflict', companyHasDataMessage(removed), {
        details: ['Repeat the request with ?cascade=true to delete the company and all of its data.'],
      });
    }
    await repo.deleteCompany(trx, id);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'DELETE',
      entity: 'COMPANY',
      entityId: id,
      // The company row is gone; the entry must not point at it.
      companyId: null,
      details: { name: company.name, cascade, removed },
    });
    return removed;
  });
}
