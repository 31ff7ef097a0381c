-- Subscriber totals per company and status, kept by a statement-level trigger, so the subscriber
-- list's unfiltered and status-filtered totals are one row read instead of a count over millions.
create table company_subscriber_counts (
  company_id bigint not null references companies (id) on delete cascade,
  status text not null,
  subscriber_count bigint not null default 0,
  primary key (company_id, status)
);

insert into company_subscriber_counts (company_id, status, subscriber_count)
select company_id, status, count(*) from subscribers group by company_id, status;

create function subscribers_status_count_changes() returns trigger language plpgsql as $$
begin
  if tg_op in ('INSERT', 'UPDATE') then
    insert into company_subscriber_counts as c (company_id, status, subscriber_count)
    select company_id, status, count(*) from new_rows group by company_id, status order by company_id, status
    on conflict (company_id, status) do update set subscriber_count = c.subscriber_count + excluded.subscriber_count;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    update company_subscriber_counts c set subscriber_count = c.subscriber_count - d.n
      from (select company_id, status, count(*) as n from old_rows group by company_id, status) d
     where c.company_id = d.company_id and c.status = d.status;
  end if;
  return null;
end $$;
create trigger subscribers_status_count_insert after insert on subscribers
  referencing new table as new_rows for each statement execute function subscribers_status_count_changes();
create trigger subscribers_status_count_update after update on subscribers
  referencing new table as new_rows old table as old_rows for each statement execute function subscribers_status_count_changes();
create trigger subscribers_status_count_delete after delete on subscribers
  referencing old table as old_rows for each statement execute function subscribers_status_count_changes();

-- A provider may post the same inbound message twice: its id makes the second one a no-op.
create unique index messages_inbound_provider_id_key on messages (company_id, provider_message_id)
  where direction = 'inbound' and provider_message_id is not null;
