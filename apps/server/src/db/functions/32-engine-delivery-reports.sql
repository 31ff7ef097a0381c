-- apply_delivery_reports (migration 0029) for batches of thousands: its answer joined each found
-- recipient to the rows the update changed, a nested loop (hash and merge joins are off in the
-- function) that compared every pair: 4,000,000 comparisons and 1.2 s for a batch of 2,000, where
-- batches of 50 never showed it. Whether a recipient moves is now decided once, in the locking
-- lookup (its row is locked there, so the update that follows changes exactly those rows), and the
-- answer reads it from there. Same rule, same results.
create or replace function apply_delivery_reports(p_company_id bigint, p_ids text[], p_statuses text[], p_provider_statuses text[], p_errors text[], p_ats timestamp with time zone[], p_window interval, p_keep_unknown boolean)
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
    select distinct on (u.gid) u.gid, u.status, u.provider_status, u.error, u.at, r.rank
      from unnest(p_ids, p_statuses, p_provider_statuses, p_errors, p_ats)
           with ordinality as u(gid, status, provider_status, error, at, ord)
      cross join lateral (select case u.status when 'submitted' then 1 when 'sent' then 2 else 3 end as rank) r
     order by u.gid, r.rank desc, u.ord
  ),
  found as (
    select d.company_id, d.message_id, d.id, d.created_at, d.status as old_status,
           i.gid, i.status, i.provider_status, i.error, i.at,
           i.rank > case d.status when 'pending' then 0 when 'submitted' then 1 when 'sent' then 2 else 3 end as moves
      from input i
      cross join lateral (
        select g.message_id, g.id, g.created_at
          from recipient_gateway_ids g
         where g.company_id = p_company_id and g.gateway_message_id = i.gid
           and g.created_at >= now() - p_window and g.created_at <= now() + interval '1 day'
        offset 0) g
      join delivery_reports d
        on d.company_id = p_company_id and d.message_id = g.message_id and d.id = g.id and d.created_at = g.created_at
       and d.created_at >= now() - p_window and d.created_at <= now() + interval '1 day'
       for update of d
  ),
  changed as (
    update delivery_reports d
       set status = t.status,
           provider_status = t.provider_status,
           error_message = case when t.status in ('failed', 'rejected', 'expired') then coalesce(t.error, t.provider_status)
                                else d.error_message end,
           delivered_at = case when t.status = 'delivered' then t.at else d.delivered_at end,
           updated_at = now()
      from found t
     where d.company_id = t.company_id and d.message_id = t.message_id and d.id = t.id and d.created_at = t.created_at
       and d.created_at >= now() - p_window and d.created_at <= now() + interval '1 day'
       and t.moves
    returning d.id
  ),
  kept as (
    insert into unmatched_delivery_reports (company_id, gateway_message_id, status, provider_status, error_message, reported_at)
    select p_company_id, i.gid, i.status, i.provider_status, i.error, i.at
      from input i
     where p_keep_unknown and i.gid not in (select f.gid from found f)
    on conflict do nothing
  )
  select f.gid, f.message_id, f.old_status, case when f.moves then f.status end
    from found f;
end $function$;


create or replace function take_delivery_reports(p_company_id bigint, p_token_hashes bytea[], p_ids text[], p_statuses text[], p_provider_statuses text[], p_errors text[], p_ats timestamp with time zone[], p_window interval, p_keep_unknown boolean)
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
  end if;
  select array_agg(a.gid), array_agg(a.message_id), array_agg(a.old_status), array_agg(a.new_status)
    into found_gids, found_messages, found_old, found_new
    from apply_delivery_reports(p_company_id, p_ids, p_statuses, p_provider_statuses, p_errors, p_ats,
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
create or replace function accept_delivery_reports(p_company_id bigint, p_token_hashes bytea[], p_ids text[], p_statuses text[], p_provider_statuses text[], p_errors text[], p_ats timestamp with time zone[])
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
  end if;
  insert into delivery_report_inbox (company_id, gateway_message_ids, statuses, provider_statuses, error_messages,
                                     reported_ats)
  values (p_company_id, p_ids, p_statuses, p_provider_statuses, p_errors, p_ats);
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
    returning b.id, b.gateway_message_ids, b.statuses, b.provider_statuses, b.error_messages, b.reported_ats
  )
  select array_agg(u.gid order by t.id, u.ord), array_agg(u.status order by t.id, u.ord),
         array_agg(u.provider_status order by t.id, u.ord), array_agg(u.error order by t.id, u.ord),
         array_agg(u.at order by t.id, u.ord)
    into taken_ids, taken_statuses, taken_provider_statuses, taken_errors, taken_ats
    from taken t
    cross join lateral unnest(t.gateway_message_ids, t.statuses, t.provider_statuses, t.error_messages, t.reported_ats)
         with ordinality as u(gid, status, provider_status, error, at, ord);
  if taken_ids is null then
    return 0;
  end if;

  select array_agg(a.message_id), array_agg(a.old_status), array_agg(a.new_status)
    into found_messages, found_old, found_new
    from apply_delivery_reports(p_company_id, taken_ids, taken_statuses, taken_provider_statuses, taken_errors,
                                taken_ats, p_window, true) a;

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
