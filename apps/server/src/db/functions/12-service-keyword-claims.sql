create or replace function services_claim_keyword()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    delete from service_keyword_claims where service_id = old.id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into service_keyword_claims (shortcode, keyword, service_id)
    values (upper(new.shortcode), upper(new.keyword), new.id);
  end if;
  return null;
end $function$;
revoke execute on function services_claim_keyword() from public;

drop trigger if exists services_claim_keyword_delete on services;
create trigger services_claim_keyword_delete after delete on services for each row execute function services_claim_keyword();
drop trigger if exists services_claim_keyword_insert on services;
create trigger services_claim_keyword_insert after insert on services for each row execute function services_claim_keyword();
drop trigger if exists services_claim_keyword_update on services;
create trigger services_claim_keyword_update after update of shortcode, keyword on services for each row when (((upper(old.shortcode) IS DISTINCT FROM upper(new.shortcode)) OR (upper(old.keyword) IS DISTINCT FROM upper(new.keyword)))) execute function services_claim_keyword();
