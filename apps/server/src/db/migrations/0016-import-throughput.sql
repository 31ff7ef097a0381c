-- Import throughput (docs/decisions/0013-streamed-import.md): every subscriber and subscription row
-- an import writes pays for each index entry and each foreign-key check, and PostgreSQL checks a
-- foreign key row by row (a query and a row lock per row). Three of them proved nothing the schema
-- did not already hold.

-- subscriptions.company_id -> companies: implied twice. Every subscription's (company_id,
-- service_id) references services (company_id, id), whose company_id references companies, and its
-- (company_id, subscriber_id) references subscribers, whose company_id does too; deleting a company
-- still removes its subscriptions (through its services and subscribers, both on delete cascade).
-- At 1,000,000 imported rows this check alone took 31 s of the 160 s subscription insert.
alter table subscriptions drop constraint if exists subscriptions_company_id_fkey;

-- (company_id, service_id) is the leading part of the primary key (company_id, service_id,
-- subscriber_id), which serves every lookup this index served.
drop index if exists subscriptions_company_idx;

-- (company_id, id desc) has the keys of the primary key (company_id, id) since 0010; a B-tree is
-- read backwards as cheaply, so newest-first pages use the primary key.
drop index if exists subscribers_company_id_idx;
