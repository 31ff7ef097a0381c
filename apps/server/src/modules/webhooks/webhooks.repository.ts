import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type WebhookEndpointRow = {
  id: number;
  company_id: number;
  url: string;
  description: string;
  event_types: string[];
  secret_prefix: string;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  pending_events: number;
  created_at: Date;
};

const ENDPOINT_COLUMNS = sql`w.id, w.company_id, w.url, w.description, w.event_types, w.secret_prefix,
  w.enabled, w.disabled_reason, w.disabled_at, w.failing_since, w.created_at,
  (select count(*)::int from webhook_events e
    where e.company_id = w.company_id and e.id > w.after_event_id and e.type = any(w.event_types)) as pending_events`;

export async function listEndpoints(db: Executor, companyId: number) {
  const { rows } = await sql<WebhookEndpointRow>`
    select ${ENDPOINT_COLUMNS} from webhook_endpoints w
     where w.company_id = ${companyId} order by w.created_at desc, w.id desc`.execute(db);
  return rows;
}

export async function findEndpoint(db: Executor, companyId: number, id: number) {
  const { rows } = await sql<WebhookEndpointRow>`
    select ${ENDPOINT_COLUMNS} from webhook_endpoints w
     where w.company_id = ${companyId} and w.id = ${id}`.execute(db);
  return rows[0];
}

/** A new endpoint receives the events written from now on, not the company's older ones. */
export async function insertEndpoint(
  db: Executor,
  endpoint: {
    companyId: number;
    url: string;
    description: string;
    eventTypes: string[];
    secretEncrypted: string;
    secretPrefix: string;
    createdBy: number;
  },
) {
  const { rows } = await sql<{ id: number }>`
    insert into webhook_endpoints (company_id, url, description, event_types, secret_encrypted, secret_prefix,
                                   created_by, after_event_id)
    values (${endpoint.companyId}, ${endpoint.url}, ${endpoint.description}, ${endpoint.eventTypes}::text[],
            ${endpoint.secretEncrypted}, ${endpoint.secretPrefix}, ${endpoint.createdBy},
            coalesce((select max(id) from webhook_events where company_id = ${endpoint.companyId}), 0))
    returning id`.execute(db);
  return rows[0]!.id;
}

/** Enabling again clears the failure record: deliveries resume from where they stopped. */
export async function updateEndpoint(
  db: Executor,
  companyId: number,
  id: number,
  change: { url?: string; description?: string; eventTypes?: string[]; enabled?: boolean },
) {
  await sql`
    update webhook_endpoints set
      url = coalesce(${change.url ?? null}, url),
      description = coalesce(${change.description ?? null}, description),
      event_types = coalesce(${change.eventTypes ?? null}::text[], event_types),
      enabled = coalesce(${change.enabled ?? null}::boolean, enabled),
      disabled_reason = case when ${change.enabled ?? null}::boolean is null then disabled_reason
                             when ${change.enabled ?? null}::boolean then null else 'Disabled by an admin' end,
      disabled_at = case when ${change.enabled ?? null}::boolean is null then disabled_at
                         when ${change.enabled ?? null}::boolean then null else now() end,
      failing_since = case when ${change.enabled ?? null}::boolean then null else failing_since end,
      updated_at = now()
     where company_id = ${companyId} and id = ${id}`.execute(db);
}

export async function deleteEndpoint(db: Executor, companyId: number, id: number) {
  const { rows } = await sql`
    delete from webhook_endpoints where company_id = ${companyId} and id = ${id} returning id`.execute(db);
  return rows.length > 0;
}

export type WebhookDeliveryRow = {
  id: number;
  event_types: string[];
  event_count: number;
  first_event_id: string | null;
  last_event_id: string | null;
  attempt: number;
  is_test: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  succeeded: boolean;
  created_at: Date;
};

/** The endpoint's latest deliveries, newest first. */
export async function listDeliveries(db: Executor, companyId: number, endpointId: number, limit: number) {
  const { rows } = await sql<WebhookDeliveryRow>`
    select id, event_types, event_count, first_event_id::text, last_event_id::text, attempt, is_test,
           status_code, duration_ms, error, succeeded, created_at
      from webhook_deliveries
     where company_id = ${companyId} and endpoint_id = ${endpointId}
     order by id desc limit ${limit}`.execute(db);
  return rows;
}

export async function findDelivery(db: Executor, companyId: number, id: number) {
  const { rows } = await sql<WebhookDeliveryRow>`
    select id, event_types, event_count, first_event_id::text, last_event_id::text, attempt, is_test,
           status_code, duration_ms, error, succeeded, created_at
      from webhook_deliveries where company_id = ${companyId} and id = ${id}`.execute(db);
  return rows[0]!;
}

export type DeliveryRecord = {
  companyId: number;
  endpointId: number;
  firstEventId: string | null;
  lastEventId: string | null;
  eventCount: number;
  eventTypes: string[];
  attempt: number;
  isTest: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  succeeded: boolean;
};

export async function insertDelivery(db: Executor, record: DeliveryRecord) {
  const { rows } = await sql<{ id: number }>`
    insert into webhook_deliveries (company_id, endpoint_id, first_event_id, last_event_id, event_count,
                                    event_types, attempt, is_test, status_code, duration_ms, error, succeeded)
    values (${record.companyId}, ${record.endpointId}, ${record.firstEventId}, ${record.lastEventId},
            ${record.eventCount}, ${record.eventTypes}::text[], ${record.attempt}, ${record.isTest},
            ${record.statusCode}, ${record.durationMs}, ${record.error}, ${record.succeeded})
    returning id`.execute(db);
  return rows[0]!.id;
}

// ---- What the deliverer reads and writes (webhook-delivery.ts) ----

export type EndpointToDeliver = {
  id: number;
  company_id: number;
  url: string;
  event_types: string[];
  secret_encrypted: string;
  enabled: boolean;
  after_event_id: string;
  failing_since: Date | null;
  failing_for_seconds: number | null;
};

export async function findEndpointToDeliver(db: Executor, companyId: number, id: number) {
  const { rows } = await sql<EndpointToDeliver>`
    select id, company_id, url, event_types, secret_encrypted, enabled, after_event_id::text, failing_since,
           extract(epoch from now() - failing_since)::float8 as failing_for_seconds
      from webhook_endpoints where company_id = ${companyId} and id = ${id}`.execute(db);
  return rows[0];
}

/**
 * Exclusive for the rest of the transaction, or false: some transaction that wrote the company's
 * events is still open (db/functions/11-message-triggers.sql explains why the reader waits for none).
 */
export async function tryLockCompanyEvents(db: Executor, companyId: number) {
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(7201556, ${companyId}::int) as locked`.execute(db);
  return rows[0]!.locked;
}

export type OutboxEvent = { id: string; type: string; payload: Record<string, unknown>; created_at: Date };

/**
 * The next events the endpoint wants after its cursor, oldest first, and how far the cursor may
 * move once they are delivered: their last id if the batch is full, else every event the company
 * has (those in between are of types the endpoint does not want). Run holding the company's lock.
 */
export async function nextEvents(
  db: Executor,
  endpoint: { company_id: number; after_event_id: string; event_types: string[] },
  limit: number,
) {
  const { rows } = await sql<OutboxEvent>`
    select e.id::text as id, e.type, e.payload, e.created_at from webhook_events e
     where e.company_id = ${endpoint.company_id} and e.id > ${endpoint.after_event_id}::bigint
       and e.type = any(${endpoint.event_types}::text[])
     -- By the number: the text the answer carries would sort 10 before 9.
     order by e.id limit ${limit}`.execute(db);
  if (rows.length === limit) return { events: rows, advanceTo: rows.at(-1)!.id };
  const { rows: last } = await sql<{ id: string | null }>`
    select max(id)::text as id from webhook_events where company_id = ${endpoint.company_id}`.execute(db);
  return { events: rows, advanceTo: last[0]?.id ?? endpoint.after_event_id };
}

/** Moves the cursor, unless another run moved it first; a success ends the endpoint's failure record. */
export async function advanceCursor(db: Executor, companyId: number, id: number, from: string, to: string) {
  const { rows } = await sql`
    update webhook_endpoints set after_event_id = ${to}::bigint, failing_since = null, last_attempt_at = now()
     where company_id = ${companyId} and id = ${id} and after_event_id = ${from}::bigint
    returning id`.execute(db);
  return rows.length > 0;
}

export async function recordFailure(db: Executor, companyId: number, id: number) {
  await sql`
    update webhook_endpoints set failing_since = coalesce(failing_since, now()), last_attempt_at = now()
     where company_id = ${companyId} and id = ${id}`.execute(db);
}

export async function disableEndpoint(db: Executor, companyId: number, id: number, reason: string) {
  await sql`
    update webhook_endpoints set enabled = false, disabled_reason = ${reason}, disabled_at = now(), updated_at = now()
     where company_id = ${companyId} and id = ${id}`.execute(db);
}

/** How many earlier posts of a batch starting at this event failed (a batch's attempt number). */
export async function attemptsBefore(
  db: Executor,
  companyId: number,
  endpointId: number,
  firstEventId: string,
) {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from webhook_deliveries
     where company_id = ${companyId} and endpoint_id = ${endpointId}
       and first_event_id = ${firstEventId}::bigint and not is_test and not succeeded`.execute(db);
  return rows[0]!.n;
}

/**
 * Endpoints, in every company, with events after their cursor: enabled, and not failing (a failing
 * endpoint's job is waiting for its retry), unless its last attempt is so old that its job is lost.
 * Run in the platform scope.
 */
export async function endpointsWithPendingEvents(db: Executor, lostAfterSeconds: number) {
  const { rows } = await sql<{ company_id: number; id: number }>`
    select w.company_id, w.id from webhook_endpoints w
     where w.enabled
       and (w.failing_since is null or w.last_attempt_at < now() - make_interval(secs => ${lostAfterSeconds}))
       and exists (select 1 from webhook_events e where e.company_id = w.company_id and e.id > w.after_event_id)
     order by w.company_id, w.id`.execute(db);
  return rows;
}

/**
 * Deletes up to `limit` events every endpoint of their company has moved past (its cursor), the
 * oldest first, by the primary key. Returns how many. Run in the platform scope.
 */
export async function deleteTakenEvents(db: Executor, limit: number) {
  const result = await sql`
    delete from webhook_events e
     using (select t.company_id, t.id
              from (select company_id, min(after_event_id) as taken from webhook_endpoints group by company_id) w
              cross join lateral (select company_id, id from webhook_events
                                   where company_id = w.company_id and id <= w.taken
                                   order by id limit ${limit}) t
             limit ${limit}) taken
     where e.company_id = taken.company_id and e.id = taken.id`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Deletes up to `limit` events or deliveries older than their kept days. Returns how many. */
export async function deleteOlderThan(
  db: Executor,
  table: 'webhook_events' | 'webhook_deliveries',
  keptDays: number,
  limit: number,
) {
  const result = await sql`
    delete from ${sql.table(table)} e
     using (select company_id, id from ${sql.table(table)}
             where created_at < now() - make_interval(days => ${keptDays}) limit ${limit}) old
     where e.company_id = old.company_id and e.id = old.id`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
