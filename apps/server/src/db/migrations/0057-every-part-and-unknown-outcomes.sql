-- Delivery reports for every part of a long message, message ids in either number base, and
-- hand-overs whose outcome is unknown (issue 36; docs/engine.md).

-- One row per id a report may name: each part's (`part`, 1..n), and for an SMSC whose receipts may
-- give the id in the other number base, that form too (`alternative`: matched only when no id is
-- exactly the report's, and only when it names one recipient).
alter table recipient_gateway_ids
  add column part smallint not null default 1,
  add column alternative boolean not null default false;

-- report_parts: how many parts' reports the recipient waits for (null: one); delivered_parts: the
-- parts reported delivered so far. The recipient is delivered once every part is, failed once any
-- part fails. outcome_unknown_since: the hand-over got no answer (a time-out): the provider may
-- have taken it, so it is not offered again; it counts as submitted until a report (by provider id,
-- or by company and phone number) settles it, and ends failed past SEND_VALIDITY_HOURS.
alter table delivery_reports
  add column report_parts smallint,
  add column delivered_parts smallint[],
  add column outcome_unknown_since timestamptz;
create index delivery_reports_outcome_unknown_idx on delivery_reports (company_id, recipient_phone, outcome_unknown_since)
  where outcome_unknown_since is not null;

-- The phone number a report names (Africa's Talking's phoneNumber, a receipt's source_addr), null
-- where it names none: it settles a recipient whose hand-over outcome is unknown.
alter table delivery_report_inbox add column recipient_phones text[];

-- Their signatures gain the phone numbers (db/functions/32-engine-delivery-reports.sql).
drop function if exists accept_delivery_reports(bigint, bytea[], text[], text[], text[], text[], timestamptz[]);
drop function if exists take_delivery_reports(bigint, bytea[], text[], text[], text[], text[], timestamptz[], interval, boolean);
drop function if exists apply_delivery_reports(bigint, text[], text[], text[], text[], timestamptz[], interval, boolean);
