import { Readable } from 'node:stream';
import { totalPages } from '@sms/contracts/common/pagination';
import {
  EXPORT_CSV_HEADER,
  EXPORT_CSV_HEADER_WITH_COMPANY,
} from '@sms/contracts/subscribers/export-subscribers';
import type { TImportSubscribersData } from '@sms/contracts/subscribers/import-subscribers';
import {
  SUBSCRIBER_COUNT_CAP,
  SUBSCRIBER_MESSAGES,
  type TSubscriber,
} from '@sms/contracts/subscribers/subscriber';
import { SUBSCRIBER_ATTRIBUTE_MESSAGES } from '@sms/contracts/subscribers/update-subscriber-attributes';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import { setStatementTimeout } from '../../db/tenant-scope.ts';
import { badRequest, notFound } from '../../errors.ts';
import { isoString } from '../../lib/iso-time.ts';
import { keepRecent } from '../../lib/keep-recent.ts';
import { onePerApp } from '../../lib/one-per-app.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { type AuditSource, auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { inLiveSessionTransaction } from '../auth/live-session-transaction.ts';
import { ensureSubscriberRoom, lockSubscriberRoom } from '../plans/plan-limits.ts';
import * as servicesRepo from '../services/services.repository.ts';
import * as importRepo from './import.repository.ts';
import { csvCell } from './parse-csv.ts';
import { normalisePhoneNumber, numberPrefixes, phoneSearchDigits } from './phone-number.ts';
import { type ImportSource, readImportRows } from './read-import-rows.ts';
import { listWholeSubscriberList } from './subscriber-page-anchors.ts';
import * as repo from './subscribers.repository.ts';

/** A subscriber as the lists read it; reads outside a page may not know its services (null). */
type SubscriberRow = Omit<repo.SubscriberPageRow, 'active_services' | 'attributes'> & {
  active_services: number[] | null;
  attributes?: Record<string, string> | null;
};

export function presentSubscriber(row: SubscriberRow): TSubscriber {
  return {
    id: row.id,
    msisdn: row.msisdn,
    status: row.status as TSubscriber['status'],
    companyId: row.company_id,
    company: { name: row.company_name },
    createdAt: isoString(row.created_at),
    active_services: row.active_services ?? [],
    attributes: row.attributes ?? {},
  };
}

type ListFilter = { status?: string; search?: string; companyId?: number; serviceId?: number };

/** Resolves the filter for the actor: a company-scoped user sees only their company; ids of other tenants read as missing. */
async function scopedFilter(
  deps: AppDeps,
  trx: Executor,
  ctx: RequestContext,
  filter: ListFilter,
  knownCountry?: string | null,
): Promise<repo.SubscriberFilter> {
  const companyId = tenantOf(ctx.actor) ?? filter.companyId ?? null;
  let serviceCompanyId: number | null = null;
  if (filter.serviceId !== undefined) {
    const service = await servicesRepo.findService(trx, filter.serviceId, companyId);
    if (!service) throw notFound('Service');
    serviceCompanyId = service.company_id;
  }
  return {
    // A service's subscribers are all of its company: naming it lets the tables' keys serve.
    companyId: serviceCompanyId ?? companyId,
    status: filter.status,
    number: filter.search ? await numberSearch(deps, trx, companyId, filter.search, knownCountry) : null,
    serviceId: filter.serviceId,
  };
}

/** What a phone search looks for: the digits, and the E.164 beginnings they can be (company's country, else the platform's). */
async function numberSearch(
  deps: AppDeps,
  db: Executor,
  companyId: number | null,
  search: string,
  /** The company's country when it was just read (undefined: read it). */
  knownCountry?: string | null,
): Promise<repo.NumberSearch> {
  const digits = phoneSearchDigits(search);
  if (!digits) return { digits: '#', prefixes: [] };
  const companyCountry =
    knownCountry !== undefined
      ? knownCountry
      : companyId === null
        ? null
        : await repo.findCompanyCountry(db, companyId);
  const country = companyCountry ?? deps.config.defaultCountry;
  return { digits, prefixes: numberPrefixes(search, country) };
}

/** A phone search with at most this many matches is read from its ranges at once (searchCompanyNumbers). */
const FEW_MATCHES = 200;
/** Companies' default countries as last read, per app: searchCompanyNumbers checks them on every call. */
const knownCountriesOf = onePerApp(() => new Map<number, string | null>());

/**
 * A company's phone search in one call, with its exact total (`page`); when it is broad (more than
 * FEW_MATCHES) the company's country as the call checked it, or null when the text has not digits
 * enough for the number ranges: the caller reads those as before. The company's country is assumed
 * as last read here and checked by the call itself (when it changed, the call answers with the new
 * one and the search is made again).
 */
async function searchCompanyNumbers(
  deps: AppDeps,
  db: Executor,
  companyId: number,
  search: string,
  offset: number,
  limit: number,
) {
  const digits = phoneSearchDigits(search);
  if (!digits) return null;
  const knownCountries = knownCountriesOf(deps);
  let country = knownCountries.has(companyId)
    ? (knownCountries.get(companyId) as string | null)
    : await repo.findCompanyCountry(db, companyId);
  for (let attempt = 0; attempt < 2; attempt++) {
    const prefixes = numberPrefixes(search, country ?? deps.config.defaultCountry);
    if (prefixes.length === 0) return null;
    const page = await repo.searchCompanyNumbers(
      db,
      companyId,
      country,
      { digits, prefixes },
      offset,
      limit,
      FEW_MATCHES,
    );
    if (page.kind === 'country') {
      country = page.country;
      continue;
    }
    keepRecent(knownCountries, companyId, country, 1_000);
    return page.kind === 'page'
      ? { page: { rows: page.rows, count: { total: page.total, exact: true } } }
      : { broad: true, country };
  }
  return null;
}

export async function listSubscribers(
  deps: AppDeps,
  ctx: RequestContext,
  query: ListFilter & { page: number; limit: number },
) {
  const { rows, count } = await inActorTransaction(deps.db, ctx, (trx) =>
    readSubscriberPage(deps, trx, ctx, query),
  );
  return {
    subscribers: rows.map(presentSubscriber),
    totalItems: count.total,
    totalPages: totalPages(count.total, query.limit),
    currentPage: query.page,
    totalIsExact: count.exact,
  };
}

/** The page's rows and count, by the cheapest read that answers the filter. */
async function readSubscriberPage(
  deps: AppDeps,
  trx: Executor,
  ctx: RequestContext,
  query: ListFilter & { page: number; limit: number },
) {
  const offset = (query.page - 1) * query.limit;
  const companyId = tenantOf(ctx.actor) ?? query.companyId ?? null;
  let knownCountry: string | null | undefined;
  // A company's phone search alone: one call when it is narrow (most are).
  if (companyId !== null && query.search && !query.status && query.serviceId === undefined) {
    const found = await searchCompanyNumbers(deps, trx, companyId, query.search, offset, query.limit);
    if (found?.page) return found.page;
    if (found) knownCountry = found.country;
  }
  const filter = await scopedFilter(deps, trx, ctx, query, knownCountry);
  // A company's whole list: one call with its exact total, deep pages from a remembered id.
  if (filter.companyId !== null && !filter.status && !filter.number && filter.serviceId === undefined) {
    const page = await listWholeSubscriberList(deps, trx, filter.companyId, offset, query.limit);
    return { rows: page.rows, count: { total: page.total, exact: true } };
  }
  return repo.listSubscribersWithCount(trx, filter, offset, query.limit, SUBSCRIBER_COUNT_CAP);
}

async function serviceInScope(trx: Executor, ctx: RequestContext, serviceId: number) {
  const service = await servicesRepo.findService(trx, serviceId, tenantOf(ctx.actor));
  if (!service) throw notFound('Service');
  return service;
}

/** PUT /subscriptions/subscribers/{id}/attributes: replaces the subscriber's merge fields; audited. */
export async function updateSubscriberAttributes(
  deps: AppDeps,
  ctx: RequestContext,
  id: number,
  attributes: Record<string, string>,
) {
  const subscriber = await inActorTransaction(deps.db, ctx, async (trx) => {
    const found = await repo.findSubscriberById(trx, tenantOf(ctx.actor), id);
    if (!found) throw notFound('Subscriber');
    await repo.updateAttributes(trx, found.company_id, id, attributes);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'UPDATE',
      entity: 'SUBSCRIBER',
      entityId: id,
      companyId: found.company_id,
      details: { msisdn: found.msisdn, attributes: { from: found.attributes, to: attributes } },
    });
    return repo.findSubscriberById(trx, found.company_id, id);
  });
  return {
    subscriber: presentSubscriber(subscriber!),
    message: SUBSCRIBER_ATTRIBUTE_MESSAGES.saved(subscriber!.msisdn),
  };
}

export async function listServiceSubscribers(
  deps: AppDeps,
  ctx: RequestContext,
  serviceId: number,
  query: { page: number; limit: number; status: string; search?: string },
) {
  const { rows, count } = await inActorTransaction(deps.db, ctx, async (trx) => {
    const service = await serviceInScope(trx, ctx, serviceId);
    const filter = {
      companyId: service.company_id,
      serviceId,
      status: query.status,
      number: query.search ? await numberSearch(deps, trx, service.company_id, query.search) : null,
    };
    return {
      rows: await repo.listServiceSubscribers(trx, filter, (query.page - 1) * query.limit, query.limit),
      count: await repo.countServiceSubscribers(
        trx,
        { ...filter, activeCount: service.subscriber_count },
        SUBSCRIBER_COUNT_CAP,
      ),
    };
  });
  return {
    subscribers: rows.map((row) => ({
      ...presentSubscriber(row),
      subscriptionStatus: row.subscription_status as 'active' | 'unsubscribed',
      source: row.source,
      subscribedAt: row.subscribed_at.toISOString(),
      unsubscribedAt: row.unsubscribed_at?.toISOString() ?? null,
    })),
    totalItems: count.total,
    totalPages: totalPages(count.total, query.limit),
    currentPage: query.page,
    totalIsExact: count.exact,
  };
}

/** The country that numbers without a country code belong to: the company's, else the platform's. */
async function companyCountry(deps: AppDeps, db: Executor, companyId: number) {
  return (await repo.findCompanyCountry(db, companyId)) ?? deps.config.defaultCountry;
}

/** The number in E.164 for the company's default country (else the platform's), or a 400 naming it. */
export async function normaliseForCompany(deps: AppDeps, db: Executor, companyId: number, input: string) {
  const country = await companyCountry(deps, db, companyId);
  const result = normalisePhoneNumber(input, country);
  if (!result.ok)
    throw badRequest(SUBSCRIBER_MESSAGES.phoneInvalid(input.trim()), [
      `phoneNumber: ${SUBSCRIBER_MESSAGES.phoneInvalid(input.trim())}`,
    ]);
  return result.msisdn;
}

export type SubscriptionChange = { subscriberId: number; changed: boolean };

/** Subscribes a number to a service inside the caller's transaction; audits only a real change. */
export async function subscribeNumber(
  trx: Executor,
  audit: AuditSource,
  service: { id: number; company_id: number; name: string },
  msisdn: string,
  source: string,
): Promise<SubscriptionChange> {
  const subscriberId = await repo.ensureSubscriber(trx, service.company_id, msisdn);
  const changed = await repo.activateSubscription(trx, service.company_id, service.id, subscriberId, source);
  if (changed) {
    await repo.refreshSubscriberStatus(trx, service.company_id, subscriberId);
    await recordAudit(trx, audit, {
      action: 'CREATE',
      entity: 'SUBSCRIBER',
      entityId: subscriberId,
      companyId: service.company_id,
      details: { msisdn, serviceId: service.id, serviceName: service.name, source },
    });
  }
  return { subscriberId, changed };
}

/** Ends a number's subscriptions (to the given services, or all of the company's); audits a real change. */
export async function unsubscribeNumber(
  trx: Executor,
  audit: AuditSource,
  companyId: number,
  msisdn: string,
  serviceIds: number[] | null,
  source: string,
) {
  const subscriber = await repo.findSubscriber(trx, companyId, msisdn);
  if (!subscriber) return { subscriberId: null, endedServiceIds: [] as number[] };
  const ended = await repo.endSubscriptions(trx, companyId, subscriber.id, serviceIds);
  if (ended.length > 0) {
    await repo.refreshSubscriberStatus(trx, companyId, subscriber.id);
    await recordAudit(trx, audit, {
      action: 'DELETE',
      entity: 'SUBSCRIBER',
      entityId: subscriber.id,
      companyId,
      details: { msisdn, serviceIds: ended, source },
    });
  }
  return { subscriberId: subscriber.id, endedServiceIds: ended };
}

export async function subscribe(deps: AppDeps, ctx: RequestContext, serviceId: number, phoneNumber: string) {
  const { service, msisdn, result, subscriber } = await inActorTransaction(deps.db, ctx, async (trx) => {
    const service = await serviceInScope(trx, ctx, serviceId);
    const msisdn = await normaliseForCompany(deps, trx, service.company_id, phoneNumber);
    await ensureSubscriberRoom(trx, service.company_id, msisdn);
    const result = await subscribeNumber(trx, auditSourceOf(ctx), service, msisdn, 'console');
    const subscriber = await repo.findSubscriber(trx, service.company_id, msisdn);
    return { service, msisdn, result, subscriber };
  });
  return {
    subscriber: presentSubscriber(subscriber!),
    changed: result.changed,
    message: result.changed
      ? SUBSCRIBER_MESSAGES.subscribed(msisdn, service.name)
      : SUBSCRIBER_MESSAGES.alreadySubscribed(msisdn, service.name),
  };
}

export async function unsubscribe(
  deps: AppDeps,
  ctx: RequestContext,
  serviceId: number,
  phoneNumber: string,
) {
  const { service, msisdn, result, subscriber } = await inActorTransaction(deps.db, ctx, async (trx) => {
    const service = await serviceInScope(trx, ctx, serviceId);
    const msisdn = await normaliseForCompany(deps, trx, service.company_id, phoneNumber);
    const result = await unsubscribeNumber(
      trx,
      auditSourceOf(ctx),
      service.company_id,
      msisdn,
      [service.id],
      'console',
    );
    const subscriber = result.subscriberId
      ? await repo.findSubscriber(trx, service.company_id, msisdn)
      : undefined;
    return { service, msisdn, result, subscriber };
  });
  const changed = result.endedServiceIds.length > 0;
  return {
    subscriber: subscriber ? presentSubscriber(subscriber) : null,
    changed,
    message: changed
      ? SUBSCRIBER_MESSAGES.unsubscribed(msisdn, service.name)
      : SUBSCRIBER_MESSAGES.notSubscribed(msisdn, service.name),
  };
}

/** An import that added at least this many subscriptions refreshes the tables' statistics. */
const ANALYZE_AFTER_IMPORTED = 1_000;

/**
 * Reads the CSV as it arrives and stages its valid rows in the database a batch at a time, then
 * dedupes, applies the subscriber limit and subscribes set-based, all in the actor's transaction:
 * memory holds a batch, not the file, and a refused file (row cap, size) leaves nothing behind.
 * Bad lines are reported by number.
 */
export async function importSubscribers(
  deps: AppDeps,
  ctx: RequestContext,
  serviceId: number,
  csv: ImportSource,
) {
  const { service, country } = await inActorTransaction(deps.db, ctx, async (trx) => {
    const service = await serviceInScope(trx, ctx, serviceId);
    return { service, country: await companyCountry(deps, trx, service.company_id) };
  });

  const result = await inActorTransaction(deps.db, ctx, async (trx) => {
    // An import's statements are as long as its file (a million rows: over a minute on two cores),
    // bounded by the upload's size cap: no statement time-out, as the migrations have none.
    await setStatementTimeout(trx, 0);
    await importRepo.createImportStaging(trx);
    // One batch is written while the next is parsed (the database and the parser overlap); no more
    // than one is in flight, so memory stays at two batches.
    let staging: Promise<void> = Promise.resolve();
    const read = await readImportRows(csv, country, async (batch) => {
      await staging;
      staging = importRepo.stageImportRows(trx, batch.lines, batch.numbers, batch.attributes);
      // Its failure is awaited (and thrown) with the next batch or below; not unhandled meanwhile.
      staging.catch(() => {});
    });
    await staging;

    const distinct = await importRepo.collapseStagedNumbers(trx, read.attributeColumns.length > 0);
    // The company row is locked from here to commit: after the upload, so a slow one holds up nobody's subscribes.
    const { limit, room } = await lockSubscriberRoom(trx, service.company_id);
    const refusedByLimit =
      room >= distinct ? 0 : await importRepo.dropNumbersPastRoom(trx, service.company_id, service.id, room);
    const totals = await importRepo.importStagedNumbers(trx, service.company_id, service.id);
    const duplicatesInFile = read.validRows - distinct;
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'IMPORT',
      entity: 'SUBSCRIBER',
      entityId: null,
      companyId: service.company_id,
      details: {
        serviceId: service.id,
        serviceName: service.name,
        totalRows: read.totalRows,
        ...totals,
        duplicatesInFile,
        invalidRows: read.invalidRows,
        refusedByLimit,
        ...(read.attributeColumns.length > 0 ? { attributeColumns: read.attributeColumns } : {}),
      },
    });
    return {
      totalRows: read.totalRows,
      ...totals,
      duplicatesInFile,
      invalidRows: read.invalidRows,
      refusedByLimit,
      subscribersLimit: limit,
      errors: read.errors,
      attributeColumns: read.attributeColumns,
      valuesTooLong: read.valuesTooLong,
      ignoredColumns: read.ignoredColumns,
    } satisfies TImportSubscribersData;
  });

  if (result.imported >= ANALYZE_AFTER_IMPORTED) {
    // After commit, so the import's locks are not held through it; awaited, so the next request plans with it.
    await inActorTransaction(deps.db, ctx, async (trx) => {
      // ANALYZE of a million subscribers outlasts a request's statement time-out too.
      await setStatementTimeout(trx, 0);
      await importRepo.analyzeSubscriberTables(trx);
    });
  }
  return result;
}

const EXPORT_BATCH = 2_000;
type ExportBatch = Awaited<ReturnType<typeof repo.exportBatch>>;

/**
 * The CSV as a stream of keyset batches: memory stays flat however many rows match. A system_admin's
 * file ends with a company column (even when filtered to one company, so its header never changes);
 * a company user's file keeps the columns it always had.
 */
export async function exportSubscribers(deps: AppDeps, ctx: RequestContext, filter: ListFilter) {
  const { scoped, fields } = await inActorTransaction(deps.db, ctx, async (trx) => {
    const scoped = await scopedFilter(deps, trx, ctx, filter);
    return { scoped, fields: await repo.exportFieldNames(trx, scoped) };
  });
  const withCompany = tenantOf(ctx.actor) === null;
  const header = [...(withCompany ? EXPORT_CSV_HEADER_WITH_COMPANY : EXPORT_CSV_HEADER), ...fields];
  async function* lines() {
    yield `${header.join(',')}\n`;
    let beforeId: number | null = null;
    for (;;) {
      // One short transaction per batch: a slow download holds no transaction open. Each looks the
      // sign-in up again, so a download outlives no sign-out, deactivation or suspension: the
      // stream fails there and the client gets a cut-off file, never the rest.
      const from: number | null = beforeId;
      const batch: ExportBatch = await inLiveSessionTransaction(deps.db, ctx.actor, (trx) =>
        repo.exportBatch(trx, scoped, from, EXPORT_BATCH),
      );
      if (batch.length === 0) return;
      yield batch
        .map((row) =>
          [
            row.msisdn,
            row.status,
            row.created_at.toISOString(),
            csvCell(row.active_service_names ?? ''),
            ...(withCompany ? [csvCell(row.company_name)] : []),
            ...fields.map((name) => csvCell((row.attributes as Record<string, string>)[name] ?? '')),
          ].join(','),
        )
        .join('\n')
        .concat('\n');
      if (batch.length < EXPORT_BATCH) return;
      beforeId = batch[batch.length - 1].id;
    }
  }
  // One batch read ahead of the socket, not sixteen: what is sent was checked just before.
  return Readable.from(lines(), { highWaterMark: 1 });
}
