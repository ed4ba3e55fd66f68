-- The worker's poll walks PENDING messages in deadline order: an index on (status,
-- process_after) serves "status = 'PENDING' … ORDER BY process_after LIMIT n"
-- directly. It replaces the partial index on process_after, which SQLite cannot use
-- for that query (its WHERE does not repeat the index's IN list).
CREATE INDEX IF NOT EXISTS conversation_messages_status_due_idx
    ON conversation_messages (status, process_after);
--bun:split
DROP INDEX IF EXISTS conversation_messages_due_idx;
