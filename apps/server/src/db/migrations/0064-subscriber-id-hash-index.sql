-- A subscriber named by its id alone (a system admin's lookup, the route guard's, PUT .../attributes)
-- is found by equality only. A B-tree on (id) also offered the planner an ordered walk of every
-- company's ids, which it chose for a company's newest page and filtered by company: a company
-- whose rows were not the newest read past every other company's (the list's PostgreSQL CPU 0.85
-- -> 3.41 ms a request), and a generic plan took it for any company. A hash index answers the
-- equality and cannot be walked in order, so a page walks the company's (company_id, id) key.
drop index if exists subscribers_id_idx;
create index if not exists subscribers_id_hash_idx on subscribers using hash (id);
