-- A fan-out step reads the next active subscriptions of each of the send's services from
-- subscriptions_service_active_idx (service, subscriber), and fetched each entry's heap row only to
-- check its company (the step's own condition, and row-level security's). With the company in the
-- index (an INCLUDE column: the key and its order stay as they were, so no plan that reads the index
-- changes) the step reads it index-only wherever the visibility map allows. 25 steps of 20,000 on the
-- bench's fixture, the pool touched first as in a running server: 790-804 ms with the heap fetches
-- (backend CPU 670-690 ms), 629-632 ms index-only (490-530 ms), about 0.35 us a recipient; the
-- subscriptions' heap pages no longer pass through the pool (12,880 pages read instead of 20,451).
-- ADR 0011, 29 November.
drop index subscriptions_service_active_idx;
create index subscriptions_service_active_idx on subscriptions (service_id, subscriber_id)
  include (company_id) where status = 'active';
