import { sql } from 'kysely';
import { connectDatabase } from '../../../apps/server/src/db/database.ts';
import { hashPassword } from '../../../apps/server/src/modules/auth/passwords.ts';
import { backfillScript } from '../../../apps/server/src/seed/demo.ts';

export const CONSOLE_READS_PASSWORD = 'Password123!';

export type ConsoleReadsSize = {
  subscribers: number;
  messages: number;
  deliveryReports: number;
  /** Recipients of the one large send whose details are read. */
  largeSend: number;
};

export type ConsoleReadsFixture = {
  bigCompanyId: number;
  companyIds: number[];
  adminEmail: string;
  platformEmail: string;
  largeSendId: number;
  /** A number of the big company, for searches that find something. */
  knownNumber: string;
  counts: { subscribers: number; messages: number; deliveryReports: number };
};

const COMPANIES = 6;
const SERVICES_PER_COMPANY = 4;
const DAYS = 120;

/**
 * Which company row g belongs to: seven in ten rows the big one (index 1), the rest spread over
 * the others, so tenancy matters to every plan.
 */
const companyIndex = (g: string) =>
  sql.raw(`(case when ${g} % 10 < 7 then 1 else 2 + ${g} % ${COMPANIES - 1} end)`);

/** Outbound messages: a tenth of all (their content ends with ' #<g>', g from 1 to this count - 1). */
const outboundCount = (size: ConsoleReadsSize) => Math.max(2, Math.round(size.messages / 10));

/**
 * The i-th of the rare search texts: '#<g>' for a g whose outbound message belongs to the big company
 * (g % 10 < 7, see companyIndex), so each text finds a few of the admin's messages: '#<g>' itself and
 * any '#<g><digit>' there is (at full size '#1234' finds #1234 and #12340 to #12346, 8 messages; at a
 * tenth, g has at most four digits and each text finds one). Four-digit g where there are any, else
 * three (quick). Texts ending in 7 (the bench's earlier '#<n>7') belong to the other companies and
 * found nothing.
 */
export function rareSearchText(size: ConsoleReadsSize, i: number) {
  const newest = outboundCount(size) - 1;
  const lowest = newest >= 1000 ? 1000 : 100;
  const highest = Math.min(lowest * 10 - 1, newest);
  // Seven of every ten numbers (last digit 0 to 6), tens from lowest up to highest.
  const texts = Math.max(1, Math.floor((highest - lowest + 1) / 10) * 7);
  const k = i % texts;
  return `#${lowest + Math.floor(k / 7) * 10 + (k % 7)}`;
}

/**
 * The console's data at scale, loaded set-based through the owner's connection and left exactly as
 * the application would have: the statement triggers keep the rollups (0009), counters (0003) and
 * search words as rows arrive, and the seed's message-sends-backfill.sql builds every
 * send's state and recipient counters from the recipient rows. Outbound messages are a tenth of
 * all, with their recipients; one send of the big company reaches `largeSend` of its subscribers.
 */
export async function loadConsoleReads(
  databaseUrl: string,
  size: ConsoleReadsSize,
  log: (line: string) => void,
): Promise<ConsoleReadsFixture> {
  const owner = connectDatabase(databaseUrl, 2);
  const db = owner.db;
  const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
  try {
    let started = performance.now();
    await sql`
      insert into companies (name, email, phone_number, address, plan, messages_limit, subscribers_limit)
      select case when g = 1 then 'Big Co' else 'Small Co ' || g end, 'co' || g || '@co.test', '+254700000000',
             'Street ' || g, (array['enterprise', 'premium', 'basic', 'professional'])[1 + g % 4],
             1000000000, 1000000000
        from generate_series(1, ${COMPANIES}) g`.execute(db);
    const companyIds = (await db.selectFrom('companies').select('id').orderBy('id').execute()).map(
      (c) => c.id,
    );
    const bigCompanyId = companyIds[0];
    const hash = await hashPassword(CONSOLE_READS_PASSWORD);
    const adminEmail = 'big-admin@co.test';
    const platformEmail = 'platform@co.test';
    await db
      .insertInto('users')
      .values([
        {
          name: 'Big Admin',
          email: adminEmail,
          password_hash: hash,
          role: 'company_admin',
          company_id: bigCompanyId,
        },
        {
          name: 'Platform',
          email: platformEmail,
          password_hash: hash,
          role: 'system_admin',
          company_id: null,
        },
      ])
      .execute();
    await sql`
      insert into services (company_id, name, shortcode, keyword, created_at)
      select c.id, (array['News', 'Sports', 'Weather', 'Deals'])[k] || ' ' || c.id, (30000 + c.id)::text,
             'K' || c.id || 'X' || k, now() - interval '200 days'
        from companies c cross join generate_series(1, ${SERVICES_PER_COMPANY}) k`.execute(db);
    // The company's services numbered 0..3 (the k-th is service number k of that company).
    const ranked = sql`(select id, company_id, (row_number() over (partition by company_id order by id) - 1)::int as k
                          from services)`;

    await sql`
      insert into subscribers (company_id, msisdn, status, created_at)
      select (${companyIds}::bigint[])[${companyIndex('g')}], '+2547' || lpad(((g::bigint * 7919) % 100000000)::text, 8, '0'),
             case when g % 25 = 0 then 'pending' when g % 9 = 0 then 'unsubscribed' else 'active' end,
             now() - ((${size.subscribers} - g) * interval '30 seconds')
        from generate_series(1, ${size.subscribers}) g`.execute(db);
    await sql`
      insert into subscriptions (company_id, service_id, subscriber_id, status, source)
      select s.company_id, r.id, s.id, case when s.status = 'active' then 'active' else 'unsubscribed' end, 'import'
        from subscribers s join ${ranked} r on r.company_id = s.company_id
         and (r.k = s.id % ${SERVICES_PER_COMPANY} or (s.id % 3 = 0 and r.k = (s.id + 1) % ${SERVICES_PER_COMPANY}))`.execute(
      db,
    );
    log(`companies, services, ${size.subscribers.toLocaleString('en-US')} subscribers: ${seconds(started)}`);

    started = performance.now();
    // Outbound: one in ten, newest last; a few not sent yet (scheduled, drafts, queued), some failed.
    const outbound = outboundCount(size);
    // Sends not out yet (scheduled, drafts, queued) have no recipients: the others share the rest.
    const notSent = (g: number) => g % 500 === 1 || g % 500 === 2 || g % 1000 === 3;
    let sent = 0;
    for (let g = 1; g < outbound; g++) if (!notSent(g)) sent++;
    const perSend = Math.max(1, Math.floor((size.deliveryReports - size.largeSend) / sent));
    const words = sql.raw(
      `(array['Good morning! Top stories are in', 'Reminder: your subscription renews tomorrow', 'Weekend special: 20% off for subscribers', 'Match alert: kick-off in 30 minutes', 'Flash sale on farm inputs today', 'Weather warning: heavy rain expected'])`,
    );
    await sql`
      insert into messages (company_id, service_id, service_ids, direction, content, status, scheduled_at, sent_at,
                            recipient_count, encoding, parts, created_at, updated_at)
      select r.company_id, r.id, array[r.id], 'outbound', ${words}[1 + g % 6] || ' #' || g,
             case when g % 500 = 1 then 'scheduled' when g % 500 = 2 then 'pending' when g % 1000 = 3 then 'queued'
                  when g % 50 = 5 then 'failed' when g % 7 = 0 then 'sent' else 'delivered' end,
             case when g % 500 = 1 then now() + interval '3 days' end,
             case when g % 500 not in (1, 2) and g % 1000 <> 3 then t.at + interval '1 minute' end,
             case when g % 500 not in (1, 2) and g % 1000 <> 3 then ${perSend}::int end, 'GSM-7', 1, t.at, t.at
        from generate_series(1, ${outbound - 1}) g
        cross join lateral (select now() - ((${outbound} - g)::float / ${outbound} * ${DAYS} || ' days')::interval as at) t
        join ${ranked} r on r.company_id = (${companyIds}::bigint[])[${companyIndex('g')}] and r.k = g % ${SERVICES_PER_COMPANY}`.execute(
      db,
    );
    const largeSend = await sql<{ id: number }>`
      insert into messages (company_id, service_id, service_ids, direction, content, status, sent_at, recipient_count,
                            encoding, parts, created_at, updated_at)
      select ${bigCompanyId}, r.id, array[r.id], 'outbound', 'Big announcement to everyone on News', 'delivered',
             now() - interval '2 days' + interval '1 minute', ${size.largeSend}, 'GSM-7', 1,
             now() - interval '2 days', now() - interval '2 days'
        from ${ranked} r where r.company_id = ${bigCompanyId} and r.k = 0
      returning id`.execute(db);
    const largeSendId = largeSend.rows[0].id;
    const inbound = size.messages - outbound;
    await sql`
      insert into messages (company_id, service_id, service_ids, direction, content, msisdn, status, created_at, updated_at)
      select r.company_id, r.id, array[r.id], 'inbound',
             (array['HELP', 'MORE', 'STOP', 'NEWS JOIN', 'Thanks!', 'SCORE'])[1 + g % 6] || ' ' || (g % 1000),
             '+2547' || lpad(((g::bigint * 104729) % 100000000)::text, 8, '0'), 'received', t.at, t.at
        from generate_series(1, ${inbound}) g
        cross join lateral (select now() - ((${inbound} - g)::float / ${inbound} * ${DAYS} || ' days')::interval as at) t
        join ${ranked} r on r.company_id = (${companyIds}::bigint[])[${companyIndex('g')}] and r.k = g % ${SERVICES_PER_COMPANY}`.execute(
      db,
    );
    log(
      `${size.messages.toLocaleString('en-US')} messages (${outbound.toLocaleString('en-US')} outbound): ${seconds(started)}`,
    );

    started = performance.now();
    await sql`select ensure_delivery_report_partition(m)
                from generate_series(now() - interval '${sql.raw(String(DAYS + 31))} days', now(), interval '1 month') m`.execute(
      db,
    );
    // Every send's recipients share its fan-out time (the partition key), as the engine writes them.
    const status = (r: string) =>
      sql.raw(`case when ${r} % 20 = 0 then 'failed' when ${r} % 50 = 1 then 'rejected' when ${r} % 97 = 2 then 'expired'
                    when m.created_at > now() - interval '1 day' and ${r} % 3 = 0 then 'submitted' else 'delivered' end`);
    await sql`
      insert into delivery_reports (company_id, created_at, message_id, service_id, recipient_phone, status, parts, attempts,
                                    gateway_message_id, submitted_at, delivered_at, updated_at)
      select m.company_id, m.created_at, m.id, m.service_id, '+2547' || lpad(((m.id * 131 + r) % 100000000)::text, 8, '0'),
             ${status('r')}, 1, 1, 'GW' || m.id || '-' || r, m.sent_at, m.sent_at + interval '5 seconds', m.sent_at
        from messages m cross join generate_series(1, ${perSend}) r
       where m.direction = 'outbound' and m.sent_at is not null and m.id <> ${largeSendId}`.execute(db);
    await sql`
      insert into delivery_reports (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, status,
                                    parts, attempts, gateway_message_id, submitted_at, delivered_at, updated_at)
      select m.company_id, m.created_at, m.id, m.service_id, s.id, s.msisdn, ${status('s.id')}, 1, 1, 'GW' || m.id || '-' || s.id,
             m.sent_at, m.sent_at + interval '5 seconds', m.sent_at
        from messages m
        cross join lateral (select id, msisdn from subscribers
                             where company_id = m.company_id and status = 'active' order by id limit ${size.largeSend}) s
       where m.id = ${largeSendId}`.execute(db);
    log(`delivery reports: ${seconds(started)}`);

    started = performance.now();
    await sql.raw(await backfillScript()).execute(db);
    await sql`
      insert into audit_logs (company_id, user_name, action, entity, entity_id, details, created_at)
      select s.company_id, 'Big Admin', (array['CREATE', 'UPDATE'])[1 + g % 2], 'SERVICE', s.id::text,
             jsonb_build_object('name', s.name), now() - (g || ' minutes')::interval
        from services s cross join generate_series(1, 200) g`.execute(db);
    log(`engine state and counters (message-sends-backfill.sql), audit trail: ${seconds(started)}`);

    started = performance.now();
    const counts = await checkConsistency(db);
    await sql`vacuum analyze`.execute(db);
    // The load's dirty pages written now rather than by a timed checkpoint spread over the reads
    // that follow (which then measure the load's writes); a checkpoint also restarts its 5-minute clock.
    await sql`checkpoint`.execute(db);
    log(`consistency checked, vacuum analyze, checkpoint: ${seconds(started)}`);
    const known = await sql<{ msisdn: string }>`
      select msisdn from subscribers where company_id = ${bigCompanyId} order by id limit 1 offset 100`.execute(
      db,
    );
    return {
      bigCompanyId,
      companyIds,
      adminEmail,
      platformEmail,
      largeSendId,
      knownNumber: known.rows[0].msisdn,
      counts,
    };
  } finally {
    await owner.close();
  }
}

/**
 * The rollups, counters and send state must say what the rows say: otherwise the bench would time
 * reads over data the application could never have produced.
 */
async function checkConsistency(db: ReturnType<typeof connectDatabase>['db']) {
  const { rows } = await sql<Record<string, number>>`
    select (select count(*) from subscribers)::bigint as subscribers,
           (select sum(subscriber_count) from company_subscriber_counts)::bigint as subscriber_counters,
           (select sum(new_subscribers) from company_monthly_activity)::bigint as subscriber_rollup,
           (select count(*) from messages)::bigint as messages,
           (select count(*) from messages where direction = 'inbound')::bigint as inbound,
           (select sum(received) from company_monthly_activity)::bigint as inbound_rollup,
           (select sum(received) from company_daily_activity)::bigint as inbound_daily,
           (select count(*) from delivery_reports)::bigint as delivery_reports,
           (select sum(pending + submitted + sent + delivered + failed + rejected + expired)
              from message_delivery_counts)::bigint as delivery_counters,
           (select sum(pending + submitted + sent + delivered + failed + rejected + expired)
              from company_monthly_activity)::bigint as delivery_rollup,
           (select sum(pending + submitted + sent + delivered + failed + rejected + expired)
              from company_daily_activity)::bigint as delivery_daily,
           (select sum(recipients) from message_sends)::bigint as send_recipients,
           (select count(*) from messages m where direction = 'outbound' and status in ('queued', 'scheduled')
               and not exists (select 1 from message_sends s where s.company_id = m.company_id and s.message_id = m.id))::bigint
             as unscheduled_sends`.execute(db);
  const c = rows[0];
  const pairs: [string, string][] = [
    ['subscribers', 'subscriber_counters'],
    ['subscribers', 'subscriber_rollup'],
    ['inbound', 'inbound_rollup'],
    ['inbound', 'inbound_daily'],
    ['delivery_reports', 'delivery_counters'],
    ['delivery_reports', 'delivery_rollup'],
    ['delivery_reports', 'delivery_daily'],
    ['delivery_reports', 'send_recipients'],
  ];
  for (const [actual, kept] of pairs)
    if (Number(c[actual]) !== Number(c[kept]))
      throw new Error(`${kept} (${c[kept]}) disagrees with ${actual} (${c[actual]})`);
  if (Number(c.unscheduled_sends) !== 0)
    throw new Error(`${c.unscheduled_sends} queued or scheduled messages have no send state`);
  return {
    subscribers: Number(c.subscribers),
    messages: Number(c.messages),
    deliveryReports: Number(c.delivery_reports),
  };
}
