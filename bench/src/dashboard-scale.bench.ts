import { sql } from 'kysely';
import { hashPassword } from '../../apps/server/src/modules/auth/passwords.ts';
import { startBenchApp } from './support/bench-app.ts';
import { measure, printTable } from './support/measure.ts';

/**
 * Dashboard, reports and the top bar's search at scale: MESSAGES (default 1,000,000) messages
 * over the last 120 days, a tenth of them outbound with RECIPIENTS_PER_SEND (default 100)
 * recipients each (10,000,000 delivery reports), the rest inbound, across 20 companies of which
 * one holds half; 300,000 subscribers. Loaded set-based, then the engine's own backfill builds its
 * counters and the 0009 triggers the rollups. The app runs as sms_app (row-level security on).
 * `npm run bench dashboard`. BENCH_REUSE=1 with BENCH_DATABASE_URL keeps a loaded database.
 */
const MESSAGES = Number(process.env.MESSAGES ?? 1_000_000);
const RECIPIENTS_PER_SEND = Number(process.env.RECIPIENTS_PER_SEND ?? 100);
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 300_000);
const COMPANIES = 20;
const DAYS = 120;
const PASSWORD = 'Password123!';

const bench = await startBenchApp({}, { appRole: true });
const owner = bench.owner.db;
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

async function load() {
  let started = performance.now();
  await sql`
    insert into companies (name, email, phone_number, address, plan, status)
    select 'Scale ' || g, 'scale' || g || '@co.test', '+254700000000', 'x',
           (array['basic', 'premium', 'professional', 'enterprise'])[1 + g % 4],
           case when g % 7 = 0 then 'pending' else 'active' end
      from generate_series(1, ${COMPANIES}) g`.execute(owner);
  const companies = await owner.selectFrom('companies').select('id').orderBy('id').execute();
  const big = companies[0].id;
  const hash = await hashPassword(PASSWORD);
  await owner
    .insertInto('users')
    .values([
      {
        name: 'Big Admin',
        email: 'big@user.test',
        password_hash: hash,
        role: 'company_admin',
        company_id: big,
      },
      { name: 'Big Viewer', email: 'viewer@user.test', password_hash: hash, role: 'viewer', company_id: big },
      {
        name: 'Platform',
        email: 'platform@user.test',
        password_hash: hash,
        role: 'system_admin',
        company_id: null,
      },
    ])
    .execute();
  // Company 1 gets half of everything, the others share the rest.
  const companyOf = (g: string) =>
    sql.raw(
      `(select id from companies order by id offset case when ${g} % 2 = 0 then 0 else 1 + ${g} % ${COMPANIES - 1} end limit 1)`,
    );
  await sql`
    insert into services (company_id, name, shortcode, keyword, status, created_at)
    select c.id, (array['News', 'Sports', 'Weather', 'Jobs', 'Deals', 'Health', 'Music', 'Farming'])[1 + g % 8] || ' ' || c.id || '-' || g,
           (30000 + c.id)::text, 'K' || c.id || 'X' || g, case when g % 5 = 0 then 'inactive' else 'active' end,
           now() - (g || ' days')::interval
      from companies c cross join generate_series(1, 8) g`.execute(owner);
  await sql`
    insert into subscribers (company_id, msisdn, status, created_at)
    select ${companyOf('g')}, '+2547' || lpad(((g::bigint * 7919) % 100000000)::text, 8, '0'),
           case when g % 9 = 0 then 'unsubscribed' else 'active' end,
           now() - ((g % (${DAYS} * 24)) || ' hours')::interval
      from generate_series(1, ${SUBSCRIBERS}) g
    on conflict do nothing`.execute(owner);
  console.log(`companies, services, ${SUBSCRIBERS.toLocaleString()} subscribers: ${seconds(started)}`);

  started = performance.now();
  const sends = Math.round(MESSAGES / 10);
  const words = sql.raw(
    `(array['Good morning! Top stories are in', 'Reminder: your subscription renews tomorrow', 'Weekend special: 20% off for subscribers', 'Match alert: kick-off in 30 minutes', 'Flash sale on farm inputs today', 'Weather warning: heavy rain expected'])`,
  );
  await sql`
    insert into messages (company_id, direction, content, status, recipient_count, encoding, parts, created_at, updated_at)
    select ${companyOf('g')}, 'outbound', ${words}[1 + g % 6] || ' #' || g, 'delivered', ${RECIPIENTS_PER_SEND}, 'GSM-7', 1,
           now() - ((g::float / ${sends}) * ${DAYS} || ' days')::interval, now()
      from generate_series(1, ${sends}) g`.execute(owner);
  await sql`
    insert into messages (company_id, direction, content, msisdn, status, created_at, updated_at)
    select ${companyOf('g')}, 'inbound', (array['HELP', 'MORE', 'STOP', 'NEWS JOIN', 'Thanks!', 'SCORE'])[1 + g % 6] || ' ' || (g % 1000),
           '+2547' || lpad(((g::bigint * 104729) % 100000000)::text, 8, '0'), 'received',
           now() - ((g::float / ${MESSAGES - sends}) * ${DAYS} || ' days')::interval, now()
      from generate_series(1, ${MESSAGES - sends}) g`.execute(owner);
  console.log(`${MESSAGES.toLocaleString()} messages: ${seconds(started)}`);

  started = performance.now();
  await sql`select ensure_delivery_report_partition(m) from generate_series(now() - interval '${sql.raw(String(DAYS + 31))} days', now(), interval '1 month') m`.execute(
    owner,
  );
  await sql`
    insert into delivery_reports (company_id, created_at, message_id, recipient_phone, status, parts, gateway_message_id)
    select m.company_id, m.created_at, m.id, '+2547' || lpad(((m.id * 131 + r) % 100000000)::text, 8, '0'),
           case when r % 20 = 0 then 'failed' when r % 50 = 1 then 'rejected' when r % 97 = 2 then 'expired'
                when m.created_at > now() - interval '1 day' and r % 3 = 0 then 'submitted' else 'delivered' end,
           1, 'GW' || m.id || '-' || r
      from messages m cross join generate_series(1, ${RECIPIENTS_PER_SEND}) r
     where m.direction = 'outbound'`.execute(owner);
  console.log(`${(sends * RECIPIENTS_PER_SEND).toLocaleString()} delivery reports: ${seconds(started)}`);

  started = performance.now();
  await sql`select backfill_message_sends()`.execute(owner);
  console.log(`engine counters (backfill_message_sends, rollups by trigger): ${seconds(started)}`);

  started = performance.now();
  await sql`
    insert into audit_logs (company_id, user_name, action, entity, entity_id, details, created_at)
    select s.company_id, 'Big Admin', (array['CREATE', 'UPDATE'])[1 + g % 2], 'SERVICE', s.id::text,
           jsonb_build_object('name', s.name), now() - (g || ' minutes')::interval
      from services s cross join generate_series(1, 500) g`.execute(owner);
  await sql`vacuum analyze`.execute(owner);
  console.log(`audit trail, vacuum analyze: ${seconds(started)}`);
}

try {
  const loaded = await owner.selectFrom('companies').select('id').limit(1).executeTakeFirst();
  if (!loaded || process.env.BENCH_REUSE !== '1') {
    if (loaded) throw new Error('The bench database holds data: set BENCH_REUSE=1 to use it, or start empty');
    await load();
  }
  const counts = await sql<{ messages: number; reports: number; rollup_sent: number; direct_sent: number }>`
    select (select count(*) from messages)::bigint as messages,
           (select count(*) from delivery_reports)::bigint as reports,
           (select sum(submitted + sent + delivered + failed + rejected + expired) from company_monthly_activity)::bigint as rollup_sent,
           (select count(*) from delivery_reports where status <> 'pending')::bigint as direct_sent`.execute(
    owner,
  );
  console.log(counts.rows[0]);
  if (Number(counts.rows[0].rollup_sent) !== Number(counts.rows[0].direct_sent))
    throw new Error('rollups disagree with the recipients');

  const signIn = async (email: string) => {
    const response = await bench.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email, password: PASSWORD },
    });
    return { authorization: `Bearer ${response.json().data.accessToken}` };
  };
  const admin = await signIn('big@user.test');
  const viewer = await signIn('viewer@user.test');
  const platform = await signIn('platform@user.test');
  const get = (url: string, headers: Record<string, string>) => async () => {
    const response = await bench.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
    if (response.statusCode !== 200)
      throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    return response;
  };
  const show = async (url: string, headers: Record<string, string>) => {
    const data = (await get(url, headers)()).json().data;
    console.log(url, JSON.stringify(data).slice(0, 300));
  };
  await show('/dashboard/stats', admin);
  await show('/reports?timeframe=30d', platform);
  await show('/search?q=weekend', admin);
  await show('/search?q=7919', admin);

  const runs = Number(process.env.RUNS ?? 200);
  const rows = [
    await measure('baseline: GET /auth/profile (token check and one row)', runs, get('/auth/profile', admin)),
    await measure(
      'GET /dashboard/stats (company admin, half the data)',
      runs,
      get('/dashboard/stats', admin),
    ),
    await measure('GET /dashboard/stats (viewer)', runs, get('/dashboard/stats', viewer)),
    await measure('GET /dashboard/stats (system admin, platform)', runs, get('/dashboard/stats', platform)),
    await measure('GET /reports?timeframe=24h (company)', runs, get('/reports?timeframe=24h', admin)),
    await measure('GET /reports?timeframe=7d (company)', runs, get('/reports?timeframe=7d', admin)),
    await measure('GET /reports?timeframe=30d (company)', runs, get('/reports?timeframe=30d', admin)),
    await measure('GET /reports?timeframe=30d (platform)', runs, get('/reports?timeframe=30d', platform)),
    await measure('GET /search common word "weekend" (company)', runs, get('/search?q=weekend', admin)),
    await measure('GET /search rare text "#99991" (company)', runs, get('/search?q=%2399991', admin)),
    await measure('GET /search no match "zzqx" (company)', runs, get('/search?q=zzqx', admin)),
    await measure('GET /search 4 digits (company)', runs, (i) => get(`/search?q=${4000 + i}`, admin)()),
    await measure('GET /search 9 digits (company)', runs, (i) =>
      get(`/search?q=7${String(10_000_000 + i * 7919)}`, admin)(),
    ),
    await measure('GET /search service name "sports" (company)', runs, get('/search?q=sports', admin)),
    await measure('GET /search "weekend" (platform)', runs, get('/search?q=weekend', platform)),
    await measure('GET /search rare "#99991" (platform)', runs, get('/search?q=%2399991', platform)),
  ];
  printTable(
    `dashboard, reports and search at ${Number(counts.rows[0].messages).toLocaleString()} messages and ${Number(counts.rows[0].reports).toLocaleString()} delivery reports (app.inject, sms_app under row-level security)`,
    rows,
  );
} finally {
  await bench.close();
}
