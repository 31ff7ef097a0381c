-- Applies a batch of one company's delivery reports from its inbox (the dlr-apply job,
-- delivery-report-applier.ts): the oldest inbox rows, up to p_max_rows and about p_max_reports
-- reports, taken and deleted in the caller's transaction; -1 when another applier holds the
-- company, else the reports taken.
--
-- Each provider id takes its most advanced report of the batch and finds its recipient: by the ids
-- recorded at the hand-over (every part's; another number base's form only where no id is exactly
-- the report's and it names one recipient), else, for a phone number whose hand-over outcome is
-- unknown (a time-out), the recipient of that company and number that has waited longest. A
-- recipient's status only moves forward (pending < submitted < sent < final), a final one is never
-- replaced; a recipient with report_parts is delivered once every part is, and fails with the
-- first part that fails. Whether a recipient moves is decided once, per recipient, over rows
-- locked in the lookup: window functions, not a join (hash and merge joins are off in the
-- function, and a nested loop over thousands of reports compares every pair). Ids no recipient
-- carries are kept, with the phone number they name, in unmatched_delivery_reports for the sweep
-- (maintenance.ts). Each recipient that moved moves its message's counters, and its send settles
-- (record_send_progress), last, so that the company's rollup rows (locked by the counters' trigger)
-- are held from there to the commit only.
create or replace function apply_delivery_report_inbox(p_company_id bigint, p_max_rows integer, p_max_reports integer, p_window interval)
 returns integer
 language plpgsql
 set enable_hashjoin to 'off'
 set enable_mergejoin to 'off'
 set enable_seqscan to 'off'
as $function$
#variable_conflict use_column
declare
  taken_ids text[];
  taken_statuses text[];
  taken_provider_statuses text[];
  taken_errors text[];
  taken_ats timestamptz[];
  taken_phones text[];
  move_messages bigint[];
  move_statuses text[];
  move_deltas integer[];
begin
  -- Key space of its own: 2^52 + company id (fan-out's slices use negative keys, the dispatch's
  -- blocks the two-integer form).
  if not pg_try_advisory_xact_lock((1::bigint << 52) + p_company_id) then
    return -1;
  end if;
  with held as (
    select q.id, cardinality(q.gateway_message_ids) as reports
      from delivery_report_inbox q
     where q.company_id = p_company_id
     order by q.id
     limit p_max_rows
       for update skip locked
  ),
  chosen as (
    -- The oldest rows while fewer than p_max_reports came before them (the first row always).
    select h.id from (select h.id, sum(h.reports) over (order by h.id) - h.reports as before from held h) h
     where h.before < p_max_reports
  ),
  taken as (
    delete from delivery_report_inbox b
     where b.company_id = p_company_id
       and b.id in (select c.id from chosen c)
    returning b.id, b.gateway_message_ids, b.statuses, b.provider_statuses, b.error_messages, b.reported_ats,
              b.recipient_phones
  )
  select array_agg(u.gid order by t.id, u.ord), array_agg(u.status order by t.id, u.ord),
         array_agg(u.provider_status order by t.id, u.ord), array_agg(u.error order by t.id, u.ord),
         array_agg(u.at order by t.id, u.ord), array_agg(u.phone order by t.id, u.ord)
    into taken_ids, taken_statuses, taken_provider_statuses, taken_errors, taken_ats, taken_phones
    from taken t
    cross join lateral unnest(t.gateway_message_ids, t.statuses, t.provider_statuses, t.error_messages, t.reported_ats,
                              t.recipient_phones)
         with ordinality as u(gid, status, provider_status, error, at, phone, ord);
  if taken_ids is null then
    return 0;
  end if;

  with input as (
    select distinct on (u.gid) u.gid, u.status, u.provider_status, u.error, u.at, u.phone, r.rank
      from unnest(taken_ids, taken_statuses, taken_provider_statuses, taken_errors, taken_ats, taken_phones)
           with ordinality as u(gid, status, provider_status, error, at, phone, ord)
      cross join lateral (select case u.status when 'submitted' then 1 when 'sent' then 2 else 3 end as rank) r
     order by u.gid, r.rank desc, u.ord
  ),
  looked_up as (
    select i.gid, i.status, i.provider_status, i.error, i.at, i.phone, g.message_id, g.id, g.created_at, g.part
      from input i
      left join lateral (
        select x.message_id, x.id, x.created_at, x.part
          from (select g.message_id, g.id, g.created_at, g.part, g.alternative, count(*) over () as named
                  from recipient_gateway_ids g
                 where g.company_id = p_company_id and g.gateway_message_id = i.gid
                   and g.created_at >= now() - p_window and g.created_at <= now() + interval '1 day'
                offset 0) x
         where not x.alternative or x.named = 1) g on true
  ),
  numbered as (
    -- Two reports no id explains for one number settle its two recipients that waited longest.
    select l.*, row_number() over (partition by l.phone, l.id is null order by l.gid) as nth
      from looked_up l
  ),
  -- Materialized: its keys then reach the recipients' index as plain values (computed from two
  -- lookups, row-level security would otherwise keep them out of the index condition).
  matched as materialized (
    select n.gid, n.status, n.provider_status, n.error, n.at,
           coalesce(n.message_id, p.message_id) as message_id, coalesce(n.id, p.id) as id,
           coalesce(n.created_at, p.created_at) as created_at, coalesce(n.part, 1::smallint) as part,
           n.id is null as by_phone
      from numbered n
      left join lateral (
        select d.message_id, d.id, d.created_at
          from delivery_reports d
         where n.id is null and n.phone is not null
           and d.company_id = p_company_id and d.recipient_phone = n.phone and d.outcome_unknown_since is not null
           and d.created_at >= now() - p_window and d.created_at <= now() + interval '1 day'
         order by d.outcome_unknown_since, d.id
        offset n.nth - 1 limit 1) p on true
     where n.id is not null or p.id is not null
  ),
  found as (
    select d.company_id, d.message_id, d.id, d.created_at, d.status as old_status, d.delivered_parts as old_parts,
           -- A recipient settled by its number waits for no part's report.
           case when m.by_phone then null else d.report_parts end as report_parts,
           m.gid, m.status, m.provider_status, m.error, m.at, m.part, m.by_phone
      from matched m
      -- Each recipient by its key (a lateral lookup: the planner's guess of one row would
      -- otherwise scan the company's recipients once and compare every pair).
      cross join lateral (
        select d.company_id, d.message_id, d.id, d.created_at, d.status, d.delivered_parts, d.report_parts
          from delivery_reports d
         where d.company_id = p_company_id and d.message_id = m.message_id and d.id = m.id
           and d.created_at = m.created_at
           and d.created_at >= now() - p_window and d.created_at <= now() + interval '1 day'
           for update) d
  ),
  gathered as (
    select f.*,
           array_agg(f.part) filter (where f.status = 'delivered' and f.report_parts > 1)
             over (partition by f.company_id, f.message_id, f.id, f.created_at) as delivered_now
      from found f
  ),
  judged as (
    select g.*, p.delivered_parts, e.effective, e.rank,
           e.rank > case g.old_status when 'pending' then 0 when 'submitted' then 1 when 'sent' then 2 else 3 end
             as moves
      from gathered g
      cross join lateral (
        select case when g.delivered_now is null then g.old_parts
                    else array(select distinct x from unnest(coalesce(g.old_parts, '{}') || g.delivered_now) x order by x)
               end as delivered_parts) p
      cross join lateral (
        -- A part delivered while others are not yet is the recipient's "sent".
        select s.effective, case s.effective when 'submitted' then 1 when 'sent' then 2 else 3 end as rank
          from (select case when g.status = 'delivered' and g.report_parts > 1
                                 and cardinality(p.delivered_parts) < g.report_parts then 'sent'
                            else g.status end as effective) s) e
  ),
  chosen as (
    select j.*,
           row_number() over ordered as nth,
           bool_or(j.moves or j.by_phone
                   or (j.delivered_parts is distinct from j.old_parts and j.old_status not in ('delivered', 'failed', 'rejected', 'expired')))
             over recipient as touched,
           bool_or(j.by_phone) over recipient as settled_by_phone
      from judged j
    window recipient as (partition by j.company_id, j.message_id, j.id, j.created_at),
           ordered as (recipient order by j.effective in ('failed', 'rejected', 'expired') desc, j.rank desc, j.part)
  ),
  changed as (
    update delivery_reports d
       set status = case when c.moves then c.effective else d.status end,
           provider_status = case when c.moves then c.provider_status else d.provider_status end,
           error_message = case when c.moves and c.effective in ('failed', 'rejected', 'expired')
                                  then coalesce(c.error, c.provider_status)
                                -- The time-out's note goes once a report says what became of it.
                                when c.moves and d.outcome_unknown_since is not null then null
                                else d.error_message end,
           delivered_at = case when c.moves and c.effective = 'delivered' then c.at else d.delivered_at end,
           delivered_parts = c.delivered_parts,
           gateway_message_id = case when c.settled_by_phone then coalesce(d.gateway_message_id, c.gid)
                                     else d.gateway_message_id end,
           outcome_unknown_since = case when c.moves or c.settled_by_phone then null else d.outcome_unknown_since end,
           updated_at = now()
      from chosen c
     where d.company_id = c.company_id and d.message_id = c.message_id and d.id = c.id and d.created_at = c.created_at
       and d.created_at >= now() - p_window and d.created_at <= now() + interval '1 day'
       and c.nth = 1 and c.touched
    returning d.id
  ),
  mapped as (
    -- The id of a recipient settled by its number: its later reports find it by the id.
    insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
    select c.company_id, c.gid, c.created_at, c.message_id, c.id from chosen c where c.by_phone
    on conflict do nothing
  ),
  kept as (
    insert into unmatched_delivery_reports (company_id, gateway_message_id, status, provider_status, error_message, reported_at,
                                            recipient_phone)
    select p_company_id, i.gid, i.status, i.provider_status, i.error, i.at, i.phone
      from input i
     where i.gid not in (select c.gid from chosen c)
    on conflict do nothing
  )
  -- Each recipient that moved: one down from where it was, one up where it went.
  select array_agg(m.message_id order by m.message_id), array_agg(m.status order by m.message_id),
         array_agg(m.delta order by m.message_id)
    into move_messages, move_statuses, move_deltas
    from (select c.message_id, s.status, sum(s.delta)::integer as delta
            from chosen c
           cross join lateral (values (c.old_status, -1), (c.effective, 1)) as s(status, delta)
           where c.nth = 1 and c.moves
           group by c.message_id, s.status) m
   where m.delta <> 0;
  if move_messages is not null then
    perform record_send_progress(p_company_id, move_messages, move_statuses, move_deltas,
                                 array(select distinct unnest(move_messages)));
  end if;
  return cardinality(taken_ids);
end $function$;
