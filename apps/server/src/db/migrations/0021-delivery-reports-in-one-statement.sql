-- A delivery-report batch in one statement (docs/decisions/0014-delivery-report-intake.md, third pass).
-- Before: six round trips per batch (begin with the binding, the token check, apply, the counter
-- upsert, settle, commit), each a socket write and read on both sides and a statement start in
-- PostgreSQL. Now the intake sends one statement, outside an explicit transaction (it commits before
-- its answer comes back, so nothing answered can be lost), and the function does the rest.

-- The rule of a valid callback URL, in one place: the company's current token of that type, while
-- the company is active. Returns the stored SHA-256 of the token, or null. isCallbackTokenValid
-- (callback-tokens.ts) compares it in constant time; take_delivery_reports compares it in SQL.
-- Security invoker: under no binding, or another company's, it finds nothing.
create function current_callback_token_hash(p_company_id bigint, p_type text) returns bytea
  language plpgsql stable as $$
begin
  -- plpgsql rather than SQL: a SQL function with a FROM is not inlined, and is planned on every call.
  return (select t.token_hash
            from company_callback_tokens t
            join companies c on c.id = t.company_id
           where t.company_id = p_company_id and t.callback_type = p_type and c.status = 'active');
end $$;

-- The per-message counters' upsert (recordCountChanges in delivery-counts.ts), the one rule every
-- status move goes through: the fan-out, the hand-over and delivery reports. One row per message
-- and shard (this session's: pg_backend_pid() modulo 8, so concurrent batches of one send rarely wait
-- on the same row; readers sum the shards), messages in id order (no deadlocks between batches).
-- plpgsql: planned once per session instead of once per batch.
create function record_count_changes(p_company_id bigint, p_message_ids bigint[], p_statuses text[], p_deltas integer[])
  returns void language plpgsql as $$
begin
  insert into message_delivery_counts as c
         (company_id, message_id, shard, pending, submitted, sent, delivered, failed, rejected, expired)
  select p_company_id, x.message_id, (pg_backend_pid() % 8)::smallint,
         coalesce(sum(x.delta) filter (where x.status = 'pending'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'submitted'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'sent'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'delivered'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'failed'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'rejected'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'expired'), 0)
    from unnest(p_message_ids, p_statuses, p_deltas) as x(message_id, status, delta)
   group by x.message_id
   order by x.message_id
  on conflict (company_id, message_id, shard) do update set
    pending = c.pending + excluded.pending,
    submitted = c.submitted + excluded.submitted,
    sent = c.sent + excluded.sent,
    delivered = c.delivered + excluded.delivered,
    failed = c.failed + excluded.failed,
    rejected = c.rejected + excluded.rejected,
    expired = c.expired + excluded.expired;
end $$;

-- One batch of one company's delivery reports, everything a batch does: the URL's token checked,
-- the reports applied (apply_delivery_reports: forward only, repeats change nothing, unknown ids
-- kept when p_keep_unknown), the counters moved (record_count_changes) and the sends settled
-- (settle_sends). Returns one outcome per input, in order: applied, unchanged (a repeat or older
-- news; a provider id reported twice in the batch: the first copy carries the news), unknown, or
-- refused (its token is not the company's current dlr token, or the company is not active: the
-- callback's 404; nothing of it is applied).
--
-- p_token_hashes holds the SHA-256 of each report's URL token, or null for a report that did not
-- come through a URL (an SMPP receipt, the sweep): those need the caller's own binding.
--
-- Tenancy (security invoker: row-level security holds throughout, as sms_app):
-- - a transaction already bound (inTenantTransaction) keeps its binding, whatever it is;
-- - an unbound one is bound to p_company_id (transaction-local), the token looked up under that
--   binding, and unbound again unless a report's token is that company's: nothing but a valid URL
--   token binds a company here, and a report without one is never applied unbound.
-- The comparison is of SHA-256 digests, so its timing can say at most how far the digest of a
-- guess matches the stored digest, never anything about the token itself.
create function take_delivery_reports(
  p_company_id bigint,
  p_token_hashes bytea[],
  p_ids text[],
  p_statuses text[],
  p_provider_statuses text[],
  p_errors text[],
  p_ats timestamptz[],
  p_window interval,
  p_keep_unknown boolean
) returns text[] language plpgsql as $$
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
  if exists (select 1 from unnest(p_token_hashes) h where h is not null) then
    valid_hash := current_callback_token_hash(p_company_id, 'dlr');
  end if;
  allowed := array(
    select case when h is null then bound_before else coalesce(h = valid_hash, false) end
      from unnest(p_token_hashes) with ordinality as t(h, ord)
     order by ord);
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

  -- Each recipient that moved: one down from where it was, one up where it went.
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
  return coalesce(outcomes, '{}');
end $$;

-- The hour a message's recipients count in (migration 0009), read by the counters' rollup trigger on
-- every batch: as a SQL function with three subqueries it was planned on every call (PostgreSQL
-- before 18 does not cache a SQL function's plans), about a quarter of a delivery-report batch's
-- time in the database. Same answer, in the same order of preference, with plans cached per session.
create or replace function message_send_hour(p_company_id bigint, p_message_id bigint) returns timestamptz
  language plpgsql stable as $$
declare
  hour timestamptz;
begin
  select s.recipients_at into hour from message_sends s where s.company_id = p_company_id and s.message_id = p_message_id;
  if hour is null then
    select r.created_at into hour from delivery_reports r
     where r.company_id = p_company_id and r.message_id = p_message_id limit 1;
  end if;
  if hour is null then
    select m.created_at into hour from messages m where m.company_id = p_company_id and m.id = p_message_id;
  end if;
  return hour;
end $$;

-- settle_sends (migration 0017) with a look first: almost every batch of delivery reports changes no
-- send and no message (their recipients still wait for reports), yet its updates of message_sends and
-- messages fired those tables' statement triggers (the message search text, the status counts) with
-- nothing in them on every batch. Now the updates run only when the same rule, read first, finds a
-- send to hand over or a message whose status is not what its counters say. Same rule, same result.
create or replace function settle_sends(p_company_id bigint, p_message_ids bigint[])
  returns table (id bigint, status text)
  language plpgsql as $$
#variable_conflict use_column
begin
  if not exists (
    with totals as (
      select t.message_id, t.pending, t.submitted + t.sent as in_flight, t.delivered, t.total
        from message_delivery_totals t
       where t.company_id = p_company_id and t.message_id = any(p_message_ids)
    )
    select 1
      from message_sends s
      left join totals t on t.message_id = s.message_id
     where s.company_id = p_company_id and s.message_id = any(p_message_ids)
       and ((s.state = 'dispatch' and t.pending = 0)
            or (s.state = 'done' and exists (
                  select 1 from messages m
                   where m.company_id = p_company_id and m.id = s.message_id
                     and m.status in ('processing', 'sent', 'delivered', 'failed')
                     and m.status <> case when coalesce(t.in_flight, 0) > 0 or coalesce(t.total, 0) = 0 then 'sent'
                                          when t.delivered > 0 then 'delivered'
                                          else 'failed' end)))
  ) then
    return;
  end if;
  return query
  with totals as (
    select t.message_id, t.pending, t.submitted + t.sent as in_flight, t.delivered, t.total
      from message_delivery_totals t
     where t.company_id = p_company_id and t.message_id = any(p_message_ids)
  ),
  handed_over as (
    update message_sends s
       set state = 'done', handed_over_at = now(), updated_at = now()
      from totals t
     where s.company_id = p_company_id and s.message_id = t.message_id
       and s.state = 'dispatch' and t.pending = 0
    returning s.message_id
  ),
  finished as (
    select s.message_id from message_sends s
     where s.company_id = p_company_id and s.message_id = any(p_message_ids) and s.state = 'done'
    union
    select message_id from handed_over
  ),
  outcome as (
    select f.message_id,
           case when coalesce(t.in_flight, 0) > 0 or coalesce(t.total, 0) = 0 then 'sent'
                when t.delivered > 0 then 'delivered'
                else 'failed' end as status
      from finished f left join totals t on t.message_id = f.message_id
  )
  update messages m
     set status = o.status, sent_at = coalesce(m.sent_at, now()), updated_at = now()
    from outcome o
   where m.company_id = p_company_id and m.id = o.message_id
     and m.status in ('processing', 'sent', 'delivered', 'failed') and m.status <> o.status
  returning m.id, m.status;
end $$;
