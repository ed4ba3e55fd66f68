-- The record of each add: a batch of messages posted to be learned from at once,
-- where their extraction stands and what it did to which memories. message_ids is
-- a JSON array of the client's message ids; results a JSON array of
-- {memory_id, change, memory} (memory as in memory_events.after).
CREATE TABLE IF NOT EXISTS add_events (
    id              TEXT         NOT NULL PRIMARY KEY,
    tenant_id       TEXT         NOT NULL,
    user_id         VARCHAR(128) NOT NULL CHECK (length(user_id) <= 128),
    conversation_id TEXT,
    message_ids     TEXT         NOT NULL CHECK (json_valid(message_ids)),
    status          VARCHAR(20)  NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
    results         TEXT         NOT NULL CHECK (json_valid(results)),
    error           TEXT,
    created_at      TIMESTAMP    NOT NULL,
    updated_at      TIMESTAMP    NOT NULL
);
--bun:split
-- A tenant's adds newest first, and one user's (listing, erasure).
CREATE INDEX IF NOT EXISTS add_events_tenant_idx ON add_events (tenant_id, created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS add_events_user_idx ON add_events (tenant_id, user_id, created_at, id);
