-- The inbox's applier takes a bounded number of reports, not only of rows (ADR 0014, 2026-11-24).
--
-- apply_delivery_report_inbox (migration 0032) took up to p_max_rows inbox rows (the applier asks
-- for 200), and a row holds one intake batch: 50 reports on average in the bench, but up to 1,000
-- when a provider bursts (the intake's largest batch). One transaction could then apply 200,000
-- reports, holding the company's rollup rows and every recipient it touched for seconds. Now it also
-- stops once p_max_reports reports are taken (the oldest rows while fewer than that came before
-- them; the first row always, so a lone large row is still applied). Rows it locked and did not take
-- stay for the next pass (one applier per company at a time, by the advisory lock). Otherwise the
-- same function: same rule, counters, settle and answer.

drop function apply_delivery_report_inbox(bigint, integer, interval);

create function apply_delivery_report_inbox(
  p_company_id bigint, p_max_rows integer, p_max_reports integer, p_window interval
)
  returns integer language plpgsql
as $$
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
end $$;

