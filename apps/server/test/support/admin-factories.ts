import type { App } from '../../src/app.ts';
import type { Database } from '../../src/db/database.ts';
import { bearer } from './factories.ts';

let counter = 0;
export const uniqueSuffix = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A valid company form, unique per call. */
export function companyForm(overrides: Record<string, unknown> = {}) {
  const id = uniqueSuffix();
  return {
    name: `Form Co ${id}`,
    email: `form-${id}@company.test`,
    phoneNumber: '+254700111222',
    address: '5 Form Street, Nairobi',
    plan: 'premium',
    status: 'active',
    ...overrides,
  };
}

/** A valid user form for a company role, unique per call. */
export function userForm(companyId: number | null, overrides: Record<string, unknown> = {}) {
  const id = uniqueSuffix();
  return {
    name: `Form User ${id}`,
    email: `form-user-${id}@user.test`,
    password: 'S3cure-password',
    role: 'viewer',
    companyId,
    status: 'active',
    ...overrides,
  };
}

/** A service, subscriber (with subscription) and message for a company: "data" a delete must respect. */
export async function addCompanyData(db: Database, companyId: number) {
  const id = uniqueSuffix();
  const service = await db
    .insertInto('services')
    .values({ company_id: companyId, name: `Svc ${id}`, shortcode: `S${id}`.slice(0, 12), keyword: `K${id}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  const subscriber = await db
    .insertInto('subscribers')
    .values({ company_id: companyId, msisdn: `2547${String(Date.now()).slice(-8)}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('subscriptions')
    .values({ company_id: companyId, service_id: service.id, subscriber_id: subscriber.id })
    .execute();
  await db
    .insertInto('messages')
    .values({ company_id: companyId, service_id: service.id, content: 'Hello', status: 'sent' })
    .execute();
  return { serviceId: service.id, subscriberId: subscriber.id };
}

export function auditEntries(
  db: Database,
  filter: { action?: string; entity?: string; entityId?: string | number },
) {
  let query = db.selectFrom('audit_logs').selectAll().orderBy('id', 'desc');
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.entity) query = query.where('entity', '=', filter.entity);
  if (filter.entityId !== undefined) query = query.where('entity_id', '=', String(filter.entityId));
  return query.execute();
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** ctx.app.inject with a bearer token and the /api/v1 prefix. */
export function call(app: App, token: string | null, method: Method, url: string, payload?: unknown) {
  return app.inject({
    method,
    url: `/api/v1${url}`,
    headers: token ? bearer(token) : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}
