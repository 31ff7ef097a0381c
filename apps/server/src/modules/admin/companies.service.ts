import type { TCompany, TCompanyForm, TCompanyPlan, TCompanyStatus } from '@sms/contracts/admin/company';
import { COMPANY_MESSAGES } from '@sms/contracts/admin/company';
import { companyHasDataMessage } from '@sms/contracts/admin/delete-company';
import type { TCompanyStats } from '@sms/contracts/admin/list-companies';
import { totalPages } from '@sms/contracts/common/pagination';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { CompanyUpdate } from '../../db/schema.ts';
import { AppError, conflict, notFound } from '../../errors.ts';
import { decryptSecret, encryptSecret, maskSecret } from '../../lib/crypto.ts';
import type { RequestContext } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { regenerateCallbackTokens } from '../callbacks/callback-tokens.ts';
import * as repo from './companies.repository.ts';

function maskStored(stored: string | null, key: Buffer) {
  if (!stored) return null;
  try {
    return maskSecret(decryptSecret(stored, key));
  } catch {
    // Encrypted with another key: say it is set without failing the whole list.
    return maskSecret('set');
  }
}

export function presentCompany(row: repo.CompanyWithCounts, encryptionKey: Buffer): TCompany {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phoneNumber: row.phone_number,
    address: row.address,
    plan: row.plan as TCompanyPlan,
    status: row.status as TCompanyStatus,
    apiKey: maskStored(row.api_key_encrypted, encryptionKey),
    apiSecret: maskStored(row.api_secret_encrypted, encryptionKey),
    packageName: row.package_name,
    packageExpiresAt: row.package_expires_at?.toISOString() ?? null,
    billingStatus: row.billing_status,
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
 * The columns a saved form writes. Credentials left out of the form keep the stored ones (the
 * form only ever sees them masked); given ones are encrypted.
 */
function companyColumns(form: TCompanyForm, key: Buffer) {
  const columns = {
    name: form.name,
    email: form.email,
    phone_number: form.phoneNumber,
    address: form.address,
    plan: form.plan,
    status: form.status,
  } satisfies CompanyUpdate;
  return {
    ...columns,
    ...(form.apiKey !== undefined && { api_key_encrypted: encryptSecret(form.apiKey, key) }),
    ...(form.apiSecret !== undefined && { api_secret_encrypted: encryptSecret(form.apiSecret, key) }),
  };
}

/** The audit details of a save: field values, but for credentials only whether they changed. */
function auditedFields(form: TCompanyForm) {
  const { apiKey, apiSecret, ...rest } = form;
  return { ...rest, apiKeyChanged: apiKey !== undefined, apiSecretChanged: apiSecret !== undefined };
}

export async function createCompany(deps: AppDeps, ctx: RequestContext, form: TCompanyForm) {
  const key = deps.keys.encryption;
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const companyId = await repo.insertCompany(trx, companyColumns(form, key));
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
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const before = await repo.findCompanyById(trx, id);
    if (!before) throw notFound('Company');
    await repo.updateCompany(trx, id, companyColumns(form, key));
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'UPDATE',
      entity: 'COMPANY',
      entityId: id,
      companyId: id,
      details: { ...auditedFields(form), previousStatus: before.status },
    });
    return presentCompany((await repo.findCompanyById(trx, id))!, key);
  });
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
