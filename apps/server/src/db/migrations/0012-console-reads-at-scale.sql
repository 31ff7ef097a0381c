-- The console's reads at scale (docs/decisions/0012-console-reads-at-scale.md): fewer round trips
-- per request, and indexes that row-level security lets the planner use.

-- The user behind an access token, in one statement: every request asks it before anything else,
-- and it used to be a transaction of its own (BEGIN, bind the platform scope, SELECT, COMMIT: four
-- round trips). The platform binding holds inside this function only (SET restores the caller's
-- settings on return), and the function returns nothing but the user whose sign-in is still live,
-- which is what that explicit platform-scope lookup returned before.
create function app_session_user(p_user_id bigint, p_session_id uuid)
  returns table (id bigint, name text, email text, role text, status text, company_id bigint,
                 company_name text, company_status text)
  language sql stable
  set app.platform = 'on' set app.company_id = ''
as $$
  select u.id, u.name, u.email, u.role, u.status, u.company_id, c.name, c.status
    from users u
    left join companies c on c.id = u.company_id
   where u.id = p_user_id
     and exists (select 1 from refresh_tokens t
                  where t.family_id = p_session_id and t.user_id = p_user_id and t.revoked_at is null)
$$;

-- Messages are keyed by (company_id, id) since migration 0010, so a message named by its id alone
-- (a system admin opening one, the route guard's visibility check) walked the whole key index: 110 ms
-- at 1,000,000 messages. Ids stay unique (one sequence); this index finds one by id again. Not
-- unique, so it costs a distributed table nothing (each shard indexes its own rows).
create index messages_id_idx on messages (id);

-- The subscriber list's phone search under row-level security (see 0009 for why a LIKE cannot use
-- an index there): numbers that start with the digits use 0009's number index; numbers that end
-- with them (the last digits people read off a screen) use this reversed copy, kept by PostgreSQL
-- itself, through a byte-order range.
alter table subscribers add column msisdn_reversed text generated always as (reverse(msisdn)) stored;
create index subscribers_company_msisdn_reversed_idx on subscribers (company_id, (msisdn_reversed collate "C"));
