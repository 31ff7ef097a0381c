-- A delivery report kept because no recipient carried its provider id keeps the phone number it
-- named (Africa's Talking's phoneNumber, a receipt's source_addr; null where it named none): a
-- report that came before its hand-over timed out settles that recipient by number once the
-- time-out is recorded (maintenance.ts), and support sees whom the provider reported on.
alter table unmatched_delivery_reports add column if not exists recipient_phone text;
