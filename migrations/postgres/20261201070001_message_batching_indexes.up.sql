-- A conversation's waiting user messages (unclaimed PENDING): the batching limits
-- count them at every ingest, and a long conversation must not be scanned whole.
CREATE INDEX IF NOT EXISTS conversation_messages_waiting_idx
    ON conversation_messages (tenant_id, user_id, conversation_id, received_at)
    WHERE status = 'PENDING' AND claimed_by IS NULL;
--bun:split
-- Users with a conversation under a claim: the worker's claim takes at most one
-- conversation of a user at a time, so one user's memories are written in order.
CREATE INDEX IF NOT EXISTS conversation_messages_claimed_user_idx
    ON conversation_messages (tenant_id, user_id)
    WHERE claimed_by IS NOT NULL;
