-- Applies one batch of one company's delivery reports (the inbox's apply, take_delivery_reports).
-- Each provider id takes its most advanced report of the batch and finds its recipient: by the ids
-- recorded at the hand-over (every part's; another number base's form only where no id is exactly
-- the report's and it names one recipient), else, for a phone number whose hand-over outcome is
-- unknown (a time-out), the recipient of that company and number that has waited longest. A
-- recipient's status only moves forward (pending < submitted < sent < final), a final one is never
-- replaced; a recipient with report_parts is delivered once every part is, and fails with the
-- first part that fails. Whether a recipient moves is decided once, per recipient, over rows
-- locked in the lookup: window functions, not a join (hash and merge joins are off in the
-- function, and a nested loop over thousands of reports compares every pair). Returns one row per
-- report found: its recipient's move on the report that decided it, and old = new on the others of
-- a recipient that changed (so they read "applied" and move no counter).
create or replace function apply_delivery_reports(p_company_id bigint, p_ids text[], p_statuses text[], p_provider_statuses text[], p_errors text[], p_ats timestamp with time zone[], p_phones text[], p_window interval, p_keep_unknown boolean)
 returns TABLE(gid text, message_id bigint, old_status text, new_status text)
 language plpgsql
 set enable_hashjoin to 'off'
 set enable_mergejoin to 'off'
 set enable_seqscan to 'off'
as $function$
#variable_conflict use_column
begin
  return query
  with input as (
    select distinct on (u.gid) u.gid, u.status, u.provider_status, u.error, u.at, u.phone, r.rank
      from unnest(p_ids, p_statuses, p_provider_statuses, p_errors, p_ats, p_phones)
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
    insert into unmatched_delivery_reports (company_id, gateway_message_id, status, provider_status, error_message, reported_at)
    select p_company_id, i.gid, i.status, i.provider_status, i.error, i.at
      from input i
     where p_keep_unknown and i.gid not in (select c.gid from chosen c)
    on conflict do nothing
  )
  select c.gid, c.message_id, c.old_status,
         case when c.nth = 1 and c.moves then c.effective when c.touched then c.old_status end
    from chosen c;
end $function$;


create or replace function take_delivery_reports(p_company_id bigint, p_token_hashes bytea[], p_ids text[], p_statuses text[], p_provider_statuses text[], p_errors text[], p_ats timestamp with time zone[], p_phones text[], p_window interval, p_keep_unknown boolean)
 returns text[]
 language plpgsql
as $function$
declare
  bound_before boolean := coalesce(current_setting('app.company_id', true), '') <> ''
                          or coalesce(current_setting('app.platform', true), '') <> '';
  valid_hash bytea;
  allowed boolean[];
  found_gids text[];
  found_messages bigint[];
  found_old text[];
  found_new text[];
  move_messages bigint[];
  move_statuses text[];
  move_deltas integer[];
  outcomes text[];
  input_ids text[] := p_ids;
begin
  if not bound_before then
    perform set_config('app.company_id', p_company_id::text, true);
  end if;
  if cardinality(array_remove(p_token_hashes, null)) > 0 then
    valid_hash := current_callback_token_hash(p_company_id, 'dlr');
  end if;
  if valid_hash is not null and cardinality(array_remove(p_token_hashes, valid_hash)) = 0 then
    -- Every report came with the company's current token.
    allowed := array_fill(true, array[cardinality(p_token_hashes)]);
  else
    allowed := array(
      select case when h is null then bound_before else coalesce(h = valid_hash, false) end
        from unnest(p_token_hashes) with ordinality as t(h, ord)
       order by ord);
  end if;
  if not bound_before and not (true = any(allowed)) then
    perform set_config('app.company_id', '', true);
    return array_fill('refused'::text, array[cardinality(p_ids)]);
  end if;

  -- Only reports whose URL passed reach the apply (a batch almost always passes whole).
  if false = any(allowed) then
    p_ids := array(select p_ids[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_statuses := array(select p_statuses[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_provider_statuses :=
      array(select p_provider_statuses[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_errors := array(select p_errors[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_ats := array(select p_ats[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_phones := array(select p_phones[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
  end if;
  select array_agg(a.gid), array_agg(a.message_id), array_agg(a.old_status), array_agg(a.new_status)
    into found_gids, found_messages, found_old, found_new
    from apply_delivery_reports(p_company_id, p_ids, p_statuses, p_provider_statuses, p_errors, p_ats, p_phones,
                                p_window, p_keep_unknown) a;

  -- The outcomes, in the order of the input (p_ids may have been narrowed above: read the input anew).
  select array_agg(case when not i.passed then 'refused'
                        when f.gid is null then 'unknown'
                        when f.moved and i.nth = 1 then 'applied'
                        else 'unchanged' end
                   order by i.ord)
    into outcomes
    from (select u.gid, u.ord, allowed[u.ord] as passed,
                 row_number() over (partition by u.gid, allowed[u.ord] order by u.ord) as nth
            from unnest(input_ids) with ordinality as u(gid, ord)) i
    left join (select f.gid, bool_or(f.new_status is not null) as moved
                 from unnest(found_gids, found_new) as f(gid, new_status)
                group by f.gid) f on f.gid = i.gid;

  -- Each recipient that moved: one down from where it was, one up where it went. Last, so that the
  -- rollup rows the counters' trigger locks (the company's send hour, day and month, shared by every
  -- batch of the company) are held from here to the commit only, not while the outcomes are worked out.
  select array_agg(m.message_id order by m.message_id), array_agg(m.status order by m.message_id),
         array_agg(m.delta order by m.message_id)
    into move_messages, move_statuses, move_deltas
    from (select f.message_id, s.status, sum(s.delta)::integer as delta
            from unnest(found_messages, found_old, found_new) as f(message_id, old_status, new_status)
           cross join lateral (values (f.old_status, -1), (f.new_status, 1)) as s(status, delta)
           where f.new_status is not null
           group by f.message_id, s.status) m
   where m.delta <> 0;
  if move_messages is not null then
    perform record_count_changes(p_company_id, move_messages, move_statuses, move_deltas);
    perform settle_sends(p_company_id, array(select distinct unnest(move_messages)));
  end if;

  return coalesce(outcomes, '{}');
end $function$;

-- Takes one batch of one company's reports into the inbox, after the URL tokens are checked by the
-- shared rule (take_delivery_reports' check, migration 0028: each report's SHA-256 of its URL token
-- against the company's current dlr token of an active company; a null hash is a report that came
-- through no URL, accepted only in a transaction already bound to the company). Run on the pool
-- outside a transaction, the statement is its own transaction: it binds itself to the company only
-- once a token is that company's. Returns, per report in order, whether it was accepted; refused
-- reports are not stored.
create or replace function accept_delivery_reports(p_company_id bigint, p_token_hashes bytea[], p_ids text[], p_statuses text[], p_provider_statuses text[], p_errors text[], p_ats timestamp with time zone[], p_phones text[])
 returns boolean[]
 language plpgsql
as $function$
declare
  bound_before boolean := coalesce(current_setting('app.company_id', true), '') <> ''
                          or coalesce(current_setting('app.platform', true), '') <> '';
  valid_hash bytea;
  allowed boolean[];
begin
  if not bound_before then
    perform set_config('app.company_id', p_company_id::text, true);
  end if;
  if cardinality(array_remove(p_token_hashes, null)) > 0 then
    valid_hash := current_callback_token_hash(p_company_id, 'dlr');
  end if;
  if valid_hash is not null and cardinality(array_remove(p_token_hashes, valid_hash)) = 0 then
    -- Every report came with the company's current token (the usual case).
    allowed := array_fill(true, array[cardinality(p_token_hashes)]);
  else
    allowed := array(
      select case when h is null then bound_before else coalesce(h = valid_hash, false) end
        from unnest(p_token_hashes) with ordinality as t(h, ord)
       order by ord);
  end if;
  if not (true = any(allowed)) then
    if not bound_before then
      perform set_config('app.company_id', '', true);
    end if;
    return allowed;
  end if;
  if false = any(allowed) then
    p_ids := array(select p_ids[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_statuses := array(select p_statuses[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_provider_statuses :=
      array(select p_provider_statuses[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_errors := array(select p_errors[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_ats := array(select p_ats[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
    p_phones := array(select p_phones[i] from generate_subscripts(allowed, 1) i where allowed[i] order by i);
  end if;
  insert into delivery_report_inbox (company_id, gateway_message_ids, statuses, provider_statuses, error_messages,
                                     reported_ats, recipient_phones)
  values (p_company_id, p_ids, p_statuses, p_provider_statuses, p_errors, p_ats,
          -- Reports that name no number (most) store none.
          case when cardinality(array_remove(p_phones, null)) > 0 then p_phones end);
  return allowed;
end $function$;


create or replace function apply_delivery_report_inbox(p_company_id bigint, p_max_rows integer, p_max_reports integer, p_window interval)
 returns integer
 language plpgsql
as $function$
declare
  taken_ids text[];
  taken_statuses text[];
  taken_provider_statuses text[];
  taken_errors text[];
  taken_ats timestamptz[];
  taken_phones text[];
  found_messages bigint[];
  found_old text[];
  found_new text[];
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

  select array_agg(a.message_id), array_agg(a.old_status), array_agg(a.new_status)
    into found_messages, found_old, found_new
    from apply_delivery_reports(p_company_id, taken_ids, taken_statuses, taken_provider_statuses, taken_errors,
                                taken_ats, taken_phones, p_window, true) a;

  -- Each recipient that moved: one down from where it was, one up where it went; last, so that the
  -- company's rollup rows (locked by the counters' trigger) are held from here to the commit only.
  select array_agg(m.message_id order by m.message_id), array_agg(m.status order by m.message_id),
         array_agg(m.delta order by m.message_id)
    into move_messages, move_statuses, move_deltas
    from (select f.message_id, s.status, sum(s.delta)::integer as delta
            from unnest(found_messages, found_old, found_new) as f(message_id, old_status, new_status)
           cross join lateral (values (f.old_status, -1), (f.new_status, 1)) as s(status, delta)
           where f.new_status is not null
           group by f.message_id, s.status) m
   where m.delta <> 0;
  if move_messages is not null then
    perform record_count_changes(p_company_id, move_messages, move_statuses, move_deltas);
    -- The sends' rows are locked before settle_sends reads them: the engine's own settle (a
    -- transaction that moves no counter, so it does not wait on the rollup rows) may be committing
    -- a send's move to 'done' right now. Without the lock, settle_sends' update would wait for it
    -- and then skip the row (no longer 'dispatch') while its read of the finished sends, on the
    -- snapshot taken before, would not see it 'done' either: the message would keep 'sent'. After
    -- the lock, settle_sends' statement starts with that commit in its snapshot. (Taken after the
    -- counters' rollup rows, in the order the engine's hand-over takes them.)
    perform 1 from message_sends s
     where s.company_id = p_company_id and s.message_id = any(move_messages)
       for update;
    perform settle_sends(p_company_id, array(select distinct unnest(move_messages)));
  end if;
  return cardinality(taken_ids);
end $function$;
