import { sql } from 'kysely';
import { hashPassword } from '../../apps/server/src/modules/auth/passwords.ts';
import { startBenchApp } from './support/bench-app.ts';
import { measure, printTable } from './support/measure.ts';

/**
 * Subscribers at scale: one company with SUBSCRIBERS (default 1,000,000) numbers loaded by one
 * generate_series INSERT, then the list, search, count and export endpoints timed through
 * app.inject. `npm run bench subscribers` (or `node bench/src/subscribers-scale.bench.ts`).
 */
const TOTAL = Number(process.env.SUBSCRIBERS ?? 1_000_000);
const bench = await startBenchApp();
try {
  const { db } = bench.deps;
  const company = await db
    .insertInto('companies')
    .values({ name: 'Scale Co', email: 'scale@co.test', phone_number: '+254700000000', address: 'x' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('users')
    .values({
      name: 'Scale Admin',
      email: 'scale@user.test',
      password_hash: await hashPassword('Password123!'),
      role: 'company_admin',
      company_id: company.id,
    })
    .execute();
  const services = await db
    .insertInto('services')
    .values(
      ['NEWS', 'SPORTS', 'WEATHER', 'JOBS', 'DEALS'].map((keyword) => ({
        company_id: company.id,
        name: `${keyword[0]}${keyword.slice(1).toLowerCase()} service`,
        shortcode: '22550',
        keyword,
      })),
    )
    .returning('id')
    .execute();
  const serviceIds = services.map((service) => service.id);

  let started = performance.now();
  await sql`
    insert into subscribers (company_id, msisdn, status, created_at)
    select ${company.id}, '+2547' || lpad(g::text, 8, '0'),
           case when g % 25 = 0 then 'pending' when g % 12 = 0 then 'unsubscribed' else 'active' end,
           now() - (g || ' seconds')::interval
      from generate_series(1, ${TOTAL}) as g`.execute(db);
  const loadSubscribers = performance.now() - started;
  started = performance.now();
  await sql`
    insert into subscriptions (company_id, service_id, subscriber_id, status, source)
    select s.company_id, (${serviceIds}::bigint[])[1 + s.id % 5], s.id,
           case when s.status = 'active' then 'active' else 'unsubscribed' end, 'import'
      from subscribers s where s.company_id = ${company.id}`.execute(db);
  const loadSubscriptions = performance.now() - started;
  started = performance.now();
  await sql`vacuum analyze subscribers`.execute(db);
  await sql`vacuum analyze subscriptions`.execute(db);
  const vacuum = performance.now() - started;
  console.log(
    `loaded ${TOTAL.toLocaleString()} subscribers in ${(loadSubscribers / 1000).toFixed(1)} s, ` +
      `their subscriptions in ${(loadSubscriptions / 1000).toFixed(1)} s, vacuum analyze ${(vacuum / 1000).toFixed(1)} s`,
  );

  const session = (
    await bench.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'scale@user.test', password: 'Password123!' },
    })
  ).json().data;
  const headers = { authorization: `Bearer ${session.accessToken}` };
  const get = (url: string) => async () => {
    const response = await bench.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
    if (response.statusCode !== 200)
      throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    return response;
  };
  const show = async (url: string) => {
    const data = (await get(url)()).json().data;
    console.log(
      `${url} -> totalItems ${data.totalItems} (exact: ${data.totalIsExact}), rows ${data.subscribers.length}`,
    );
  };
  await show('/subscriptions/subscribers');
  await show('/subscriptions/subscribers?search=0700123');
  await show('/subscriptions/subscribers?search=254');
  await show('/subscriptions/subscribers?status=pending&search=12');

  const runs = 50;
  const rows = [
    await measure('list page 1 (20), total from counters', runs, get('/subscriptions/subscribers')),
    await measure('list page 500 (20)', runs, get('/subscriptions/subscribers?page=500')),
    await measure(
      'list page 10,000 (100) = offset 999,900',
      20,
      get('/subscriptions/subscribers?page=10000&limit=100'),
    ),
    await measure('status=active page 1', runs, get('/subscriptions/subscribers?status=active')),
    await measure('status=pending page 100', runs, get('/subscriptions/subscribers?status=pending&page=100')),
    await measure('search 7 digits (1 match)', runs, (i) =>
      get(`/subscriptions/subscribers?search=0${String(700_100_000 + i * 7919).slice(0, 9)}`)(),
    ),
    await measure('search 4 digits (~1,000 matches)', runs, (i) =>
      get(`/subscriptions/subscribers?search=${4000 + i}`)(),
    ),
    await measure(
      'search "254" (every row, count capped)',
      runs,
      get('/subscriptions/subscribers?search=254'),
    ),
    await measure(
      'search 2 digits + status',
      runs,
      get('/subscriptions/subscribers?status=pending&search=12'),
    ),
    await measure('GET /services (5 services, counters)', runs, get('/services')),
    await measure(
      'GET /services/{id}/subscribers page 1',
      runs,
      get(`/services/${serviceIds[0]}/subscribers`),
    ),
    await measure(
      'GET /services/{id}/subscribers search',
      runs,
      get(`/services/${serviceIds[0]}/subscribers?search=0712345`),
    ),
    await measure(
      'export CSV status=pending (40,000 rows)',
      5,
      get('/subscriptions/subscribers/export?status=pending'),
    ),
  ];
  printTable(
    `subscribers at ${TOTAL.toLocaleString()} in one company (app.inject, embedded PostgreSQL)`,
    rows,
  );
} finally {
  await bench.close();
}
