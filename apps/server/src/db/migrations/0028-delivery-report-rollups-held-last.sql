-- A delivery-report batch holds the company's rollup rows last (docs/decisions/0014-delivery-report-intake.md,
-- fifth pass). The intake still applies one batch at a time: this shortens what a second one would wait on.
--
-- What a second batch in flight waits on, measured (pg_stat_activity sampled every 3 ms during the
-- bench, track_functions): the counters' rollup trigger (record_activity, 27 -> 101-166 us of wall
-- time per report with two batches in flight), that is the company's hourly, daily and monthly
-- rollup rows, locked by the batch before until its commit is flushed. Not the recipients (each
-- batch has its own), not the counters (sharded), not message_sends (only read). That wait stays:
-- settle_sends reads the counters after it, so a send's batches count and settle one after the
-- other, and whichever commits last sees every recipient final (without it, two last batches could
-- each see the other's recipients still in flight and leave the message 'sent'). It now starts as
-- late as it can: the outcomes are worked out before the counters move, so the rollup rows are held
-- for the counters, settle_sends and the commit only, and the next batch's lookup, locking and update
-- of its own recipients run meanwhile.
--
-- The URL tokens of a batch (almost always one company's right token on every report) are checked
-- by plain expressions first, without a query each: the statements of the general case run only
-- when a report has no token or another one. Same rule, same outcomes.

create or replace function take_delivery_reports(
  p_company_id bigint,
  p_token_hashes bytea[],
  p_ids text[],
  p_statuses text[],
  p_provider_statuses text[],
  p_errors text[],
  p_ats timestamptz[],
  p_window interval,
  p_keep_unknown boolean
) returns text[] language plpgsql
as $$
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
end $$;
