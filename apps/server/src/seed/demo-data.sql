-- Demo data: companies in every status, services of both billing types, ~5,400 subscribers,
-- 30 days of inbound and outbound history with per-recipient delivery reports in every status,
-- and the engine's per-send state rebuilt from them (message-sends-backfill.sql, run after this).
-- Deterministic (setseed) so every fresh database shows the same figures. :password_hash is bound by the loader.
select setseed(0.42);
-- The months the history reaches into (the engine creates later ones itself).
select ensure_delivery_report_partition(now() - interval '31 days'), ensure_delivery_report_partition(now());

insert into companies (name, email, phone_number, address, plan, status, package_name, package_expires_at,
                       billing_status, messages_limit, subscribers_limit, services_limit, monthly_revenue, created_at, last_active_at)
values
  ('Acme Mobile', 'ops@acme.example.com', '+254711000001', '12 Moi Avenue, Nairobi', 'premium', 'active', 'Professional',
   now() + interval '20 days', 'active', 150000, 5000, 20, 48000, now() - interval '180 days', now() - interval '1 hour'),
  ('Globex Telecom', 'noc@globex.example.com', '+254722000002', '4 Kenyatta Road, Mombasa', 'enterprise', 'active', 'Enterprise',
   now() + interval '5 days', 'active', 100000, 2000, 30, 125000, now() - interval '300 days', now() - interval '3 hours'),
  ('Soylent Media', 'hello@soylent.example.com', '+254733000003', '88 Oginga Odinga St, Kisumu', 'basic', 'active', 'Starter',
   now() + interval '90 days', 'active', 40000, 1000, 5, 9000, now() - interval '60 days', now() - interval '2 days'),
  ('Initech Messaging', 'admin@initech.example.com', '+254744000004', '3 Kenyatta Ave, Nakuru', 'basic', 'pending', 'Starter',
   null, 'inactive', 10000, 5000, 20, 0, now() - interval '2 days', null),
  ('Umbrella Alerts', 'alerts@umbrella.example.com', '+254755000005', '19 Harambee Ave, Eldoret', 'premium', 'suspended', 'Professional',
   now() - interval '10 days', 'past_due', 10000, 5000, 20, 0, now() - interval '400 days', now() - interval '40 days');

insert into users (company_id, name, email, password_hash, role, status, created_at, last_login_at)
select c.id, u.name, u.email, :password_hash, u.role, u.status, now() - u.age, now() - u.seen
  from (values
    (null, 'Alex Morgan', 'admin@example.com', 'system_admin', 'active', interval '400 days', interval '1 hour'),
    (null, 'Sam Rivera', 'support@example.com', 'system_admin', 'active', interval '200 days', interval '3 days'),
    ('Acme Mobile', 'Amina Otieno', 'owner@acme.example.com', 'company_admin', 'active', interval '180 days', interval '2 hours'),
    ('Acme Mobile', 'Brian Kamau', 'editor@acme.example.com', 'content_manager', 'active', interval '150 days', interval '1 day'),
    ('Acme Mobile', 'Carol Wanjiru', 'viewer@acme.example.com', 'viewer', 'active', interval '90 days', interval '5 days'),
    ('Acme Mobile', 'Dan Mwangi', 'former@acme.example.com', 'content_manager', 'inactive', interval '170 days', interval '60 days'),
    ('Globex Telecom', 'George Baker', 'owner@globex.example.com', 'company_admin', 'active', interval '300 days', interval '3 hours'),
    ('Globex Telecom', 'Grace Njeri', 'editor@globex.example.com', 'content_manager', 'active', interval '120 days', interval '8 days'),
    ('Globex Telecom', 'Hassan Ali', 'audit@globex.example.com', 'viewer', 'suspended', interval '100 days', interval '30 days'),
    ('Soylent Media', 'Sara Chebet', 'owner@soylent.example.com', 'company_admin', 'active', interval '60 days', interval '2 days'),
    ('Initech Messaging', 'Ian Ochieng', 'owner@initech.example.com', 'company_admin', 'active', interval '2 days', interval '2 days'),
    ('Umbrella Alerts', 'Uma Achieng', 'owner@umbrella.example.com', 'company_admin', 'active', interval '400 days', interval '40 days')
  ) as u(company, name, email, role, status, age, seen)
  left join companies c on c.name = u.company;

insert into services (company_id, name, shortcode, keyword, description, billing_type, status, created_at)
select c.id, s.name, s.shortcode, s.keyword, s.description, s.billing_type, s.status, now() - s.age
  from (values
    ('Acme Mobile', 'Daily News', '22550', 'NEWS', 'Morning headlines every day at 7am', 'package', 'active', interval '170 days'),
    ('Acme Mobile', 'Sports Alerts', '22550', 'SPORTS', 'Live scores and match alerts', 'on_demand', 'active', interval '160 days'),
    ('Acme Mobile', 'Weather Updates', '22551', 'WEATHER', 'County weather forecast', 'package', 'active', interval '120 days'),
    ('Acme Mobile', 'Promotions', '22551', 'PROMO', 'Partner offers and discounts', 'on_demand', 'inactive', interval '90 days'),
    ('Globex Telecom', 'Market Prices', '30300', 'PRICES', 'Daily farm produce prices', 'package', 'active', interval '290 days'),
    ('Globex Telecom', 'Health Tips', '30300', 'HEALTH', 'Weekly health advice', 'on_demand', 'maintenance', interval '200 days'),
    ('Globex Telecom', 'Jobs Board', '30301', 'JOBS', 'New job listings', 'on_demand', 'active', interval '100 days'),
    ('Soylent Media', 'Recipe of the Day', '40400', 'RECIPE', 'A new recipe every evening', 'package', 'active', interval '55 days'),
    ('Soylent Media', 'Flash Deals', '40400', 'DEALS', 'Time-limited deals', 'on_demand', 'active', interval '30 days'),
    ('Initech Messaging', 'Bible Verse', '50500', 'VERSE', 'A verse every morning', 'package', 'active', interval '2 days'),
    ('Umbrella Alerts', 'Emergency Alerts', '60600', 'ALERT', 'County emergency notices', 'on_demand', 'active', interval '390 days')
  ) as s(company, name, shortcode, keyword, description, billing_type, status, age)
  join companies c on c.name = s.company;

-- Valid Kenyan mobile numbers, a distinct prefix per company.
insert into subscribers (company_id, msisdn, status, created_at)
select c.id,
       '+254' || p.prefix || lpad(g.i::text, 7, '0'),
       case when random() < 0.88 then 'active' when random() < 0.67 then 'unsubscribed' else 'pending' end,
       now() - (random() * interval '170 days')
  from (values ('Acme Mobile', '71', 3000), ('Globex Telecom', '72', 1500), ('Soylent Media', '74', 600),
               ('Initech Messaging', '79', 100), ('Umbrella Alerts', '75', 200)) as p(company, prefix, n)
  join companies c on c.name = p.company
  cross join lateral generate_series(1, p.n) as g(i);

-- Each subscriber joins one to three of the company's services.
insert into subscriptions (company_id, service_id, subscriber_id, status, source, subscribed_at, unsubscribed_at)
select sub.company_id, svc.id, sub.id,
       case when sub.status = 'active' then 'active' else 'unsubscribed' end,
       (array['console', 'import', 'provider', 'sms'])[1 + floor(random() * 4)::int],
       sub.created_at,
       case when sub.status = 'active' then null else sub.created_at + interval '5 days' end
  from subscribers sub
  join lateral (
    select s.id, row_number() over (order by s.id) as rn, count(*) over () as total
      from services s where s.company_id = sub.company_id
  ) svc on (svc.rn - 1) = sub.id % svc.total
        or (sub.id % 3 = 0 and svc.rn = 1 + (sub.id / 3) % svc.total)
        or (sub.id % 7 = 0 and svc.rn = 1 + (sub.id / 7) % svc.total)
on conflict do nothing;

-- Outbound bulk sends of every active service of an active company over 30 days, in a working
-- week's rhythm, so charts and trends read like a real company's: each service sends every weekday
-- and on alternate days a second time; at weekends only some services send; and a campaign (3 and
-- 17 days ago) adds two more sends from every service. Which sends happen is fixed by the day and
-- the service (not random), so every seed draws the same shape.
create temporary table demo_sends on commit drop as
select s.company_id, s.id as service_id, d.day, slot,
       now() - (d.day * interval '1 day') - (slot * interval '3 hours') - (random() * interval '2 hours') as created_at,
       (array['Good morning! Today''s top stories are in: reply MORE for details.',
              'Reminder: your subscription renews tomorrow. Reply STOP to opt out.',
              'Breaking: new updates available now. Visit our site for the full story.',
              'Weekend special: 20% off for subscribers. Offer ends Sunday.',
              'Tip of the day: stay hydrated and take short breaks every hour.',
              'Match alert: kick-off in 30 minutes. Reply SCORE for live updates.'])[1 + floor(random() * 6)::int] as content
  from services s
  join companies c on c.id = s.company_id and c.status = 'active'
  cross join generate_series(0, 29) as d(day)
  cross join lateral (select extract(isodow from now() - d.day * interval '1 day') >= 6 as weekend) w
  cross join generate_series(0, 3) as slot
 where s.status = 'active'
   and case slot
         when 0 then not w.weekend or (s.id + d.day) % 3 = 0
         when 1 then not w.weekend and (s.id + d.day) % 2 = 0
         else d.day in (3, 17)
       end;

-- Sends of the last minutes are still being handed over: the engine picks them up when it starts.
insert into messages (company_id, service_id, service_ids, direction, content, status, sent_at, recipient_count,
                      queue_job_id, encoding, parts, created_at, updated_at)
select d.company_id, d.service_id, array[d.service_id], 'outbound', d.content, r.status,
       case when r.status <> 'queued' then d.created_at + interval '4 seconds' end,
       (select count(*) from subscriptions x
         where x.company_id = d.company_id and x.service_id = d.service_id and x.status = 'active'),
       case when r.status <> 'queued' then gen_random_uuid()::text end, 'GSM-7', 1,
       d.created_at, d.created_at + interval '4 seconds'
  from demo_sends d
  cross join lateral (
    select case when d.created_at > now() - interval '10 minutes' then 'queued'
                when d.created_at > now() - interval '1 day' then 'sent'
                when random() < 0.05 then 'failed' else 'delivered' end as status
  ) r
 order by d.created_at;

-- One delivery report per recipient (one per phone number, through the send's service). Recent
-- sends still wait for reports (submitted, sent); older ones are final: mostly delivered, some
-- failed, rejected by the provider at hand-over (no provider id) or expired on the network.
insert into delivery_reports (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, status,
                              parts, attempts, provider_status, gateway_message_id, submitted_at, delivered_at,
                              error_message, updated_at)
select m.company_id, m.created_at, m.id, m.service_id, sub.id, sub.msisdn, r.status, 1,
       case when r.status = 'pending' then 0 when random() < 0.03 then 2 else 1 end,
       case r.status when 'delivered' then 'Success' when 'failed' then 'Failed' when 'sent' then 'Sent'
                     when 'submitted' then 'Submitted' when 'rejected' then 'Rejected' when 'expired' then 'Expired' end,
       case when r.status not in ('pending', 'rejected') then 'ATXid_' || md5(m.id::text || '-' || sub.id::text) end,
       case when r.status <> 'pending' then m.created_at + interval '2 seconds' end,
       case when r.status = 'delivered' then m.created_at + (5 + random() * 120) * interval '1 second' end,
       case r.status
         when 'failed' then (array['AbsentSubscriber', 'UserInBlackList', 'DeliveryFailure', 'InsufficientCredit'])[1 + floor(random() * 4)::int]
         when 'rejected' then (array['InvalidPhoneNumber', 'UserInBlacklist', 'DoNotDisturbRejection'])[1 + floor(random() * 3)::int]
         when 'expired' then 'Expired' end,
       m.created_at + interval '10 seconds'
  from messages m
  join subscriptions x on x.company_id = m.company_id and x.service_id = m.service_id and x.status = 'active'
  join subscribers sub on sub.company_id = x.company_id and sub.id = x.subscriber_id
  cross join lateral (
    select case
      when m.status = 'failed' then (array['failed', 'failed', 'rejected'])[1 + floor(random() * 3)::int]
      when m.status = 'queued' then 'pending'
      when m.status = 'sent' then (array['submitted', 'sent', 'sent', 'delivered', 'delivered', 'delivered'])[1 + floor(random() * 6)::int]
      when random() < 0.88 then 'delivered'
      when random() < 0.5 then 'failed'
      when random() < 0.5 then 'rejected'
      else 'expired' end as status
  ) r
 where m.direction = 'outbound' and m.msisdn is null;
-- Their provider ids, where delivery reports find their recipient (migration 0029).
insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
select company_id, gateway_message_id, created_at, message_id, id from delivery_reports where gateway_message_id is not null;

-- Single messages to one number, and sends scheduled for the coming days.
insert into messages (company_id, service_id, service_ids, direction, content, msisdn, status, sent_at, recipient_count, encoding, parts, created_at, updated_at)
select s.company_id, s.id, array[s.id], 'outbound', 'Thank you for subscribing to ' || s.name || '! Reply HELP for help.',
       sub.msisdn, 'delivered', sub.created_at + interval '2 seconds', 1, 'GSM-7', 1, sub.created_at, sub.created_at
  from subscribers sub
  join subscriptions x on x.company_id = sub.company_id and x.subscriber_id = sub.id
  join services s on s.company_id = x.company_id and s.id = x.service_id
  join companies c on c.id = sub.company_id and c.status = 'active'
 where sub.created_at > now() - interval '30 days' and sub.id % 10 = 0;

-- Their queue jobs are created by the engine when it starts (it adopts sends that have none).
insert into messages (company_id, service_id, service_ids, direction, content, status, scheduled_at, recipient_count, encoding, parts, created_at, updated_at)
select s.company_id, s.id, array[s.id], 'outbound', 'Scheduled: ' || s.name || ' weekly digest is coming your way.',
       'scheduled', now() + (n * interval '1 day') + interval '9 hours', s.subscriber_count, 'GSM-7', 1, now() - interval '1 hour', now() - interval '1 hour'
  from services s
  join companies c on c.id = s.company_id and c.status = 'active'
  cross join generate_series(1, 2) as n
 where s.status = 'active';

-- Inbound messages from subscribers to the services' short codes.
insert into messages (company_id, service_id, service_ids, direction, content, msisdn, status, created_at, updated_at)
select sub.company_id, s.id, array[s.id], 'inbound',
       (array[s.keyword, 'HELP', 'MORE', 'STOP', s.keyword || ' JOIN', 'Thanks!'])[1 + floor(random() * 6)::int],
       sub.msisdn, 'received', t.at, t.at
  from subscribers sub
  join subscriptions x on x.company_id = sub.company_id and x.subscriber_id = sub.id
  join services s on s.company_id = x.company_id and s.id = x.service_id
  join companies c on c.id = sub.company_id and c.status = 'active'
  cross join lateral (select now() - random() * interval '30 days' as at) t
 where sub.id % 9 = 0;

insert into audit_logs (company_id, user_id, user_name, user_email, action, entity, entity_id, details, ip_address, user_agent, created_at)
select u.company_id, u.id, u.name, u.email, 'LOGIN', 'USER', u.id::text, '{}', '10.0.0.' || (u.id % 250), 'Mozilla/5.0 (demo data)',
       now() - (d * interval '1 day') - random() * interval '8 hours'
  from users u cross join generate_series(1, 6) as d
 where u.status = 'active';

insert into audit_logs (company_id, user_id, user_name, user_email, by_platform_staff, action, entity, entity_id, details, ip_address, user_agent, created_at)
select s.company_id, u.id, u.name, u.email, u.company_id is null, 'CREATE', 'SERVICE', s.id::text,
       jsonb_build_object('name', s.name, 'shortcode', s.shortcode, 'keyword', s.keyword),
       '10.0.0.' || (u.id % 250), 'Mozilla/5.0 (demo data)', s.created_at
  from services s join users u on u.email = 'admin@example.com';

