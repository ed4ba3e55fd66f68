-- Every change of a memory, with the memory before and after it (JSON, snake_case).
-- Ids (ULIDs, ordered for history) and keys use the C collation, as in
-- long_term_memories.
CREATE TABLE IF NOT EXISTS memory_events (
    id              TEXT         COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id       TEXT         NOT NULL,
    user_id         VARCHAR(128) NOT NULL,
    memory_key      VARCHAR(160) COLLATE "C" NOT NULL,
    memory_id       TEXT         NOT NULL,
    op              VARCHAR(20)  NOT NULL,
    before          JSONB,
    after           JSONB        NOT NULL,
    channel         VARCHAR(40),
    conversation_id TEXT,
    message_id      TEXT,
    at              TIMESTAMPTZ  NOT NULL
);
--bun:split
-- History of one key, oldest first (ids are ULIDs).
CREATE INDEX IF NOT EXISTS memory_events_key_idx
    ON memory_events (tenant_id, user_id, memory_key, id);
--bun:split
-- The events a conversation message caused.
CREATE INDEX IF NOT EXISTS memory_events_message_idx
    ON memory_events (tenant_id, user_id, message_id) WHERE message_id IS NOT NULL;
