-- A callback URL works whatever the company's status (docs/decisions/0008, security issue item 2).
-- Suspending a company (or leaving it pending or inactive) stops what it sends and who it signs up,
-- not what providers report back: delivery reports of messages already handed over still settle
-- their recipients (refused, they stayed 'submitted' for good), and opt-outs (STOP, deletions) are
-- always honoured. Opt-ins are refused where they are handled (subscription-callback.service.ts),
-- which reads the status itself. The rule stays in this one function, which the token check of
-- every callback and the delivery-report intake (accept_delivery_reports) call; a deleted company's
-- tokens are deleted with it.
create or replace function current_callback_token_hash(p_company_id bigint, p_type text) returns bytea
  language plpgsql stable as $$
begin
  return (select t.token_hash
            from company_callback_tokens t
           where t.company_id = p_company_id and t.callback_type = p_type);
end $$;
