-- A cancelled scheduled message is kept, not deleted: its row stays in the message list with
-- status 'cancelled', who cancelled it and when.
alter table messages drop constraint messages_status_check;
alter table messages add constraint messages_status_check
  check (status in ('pending', 'queued', 'scheduled', 'processing', 'sent', 'delivered', 'failed', 'received',
                    'cancelled'));

-- Who cancelled: the user's id and name as they were (the name stays readable to the company's
-- own users after that user is gone, or when a system admin of another scope cancelled it).
alter table messages
  add column cancelled_at timestamptz,
  add column cancelled_by bigint,
  add column cancelled_by_name text;
