-- The record of each add: a batch of messages posted to be learned from at once,
-- where their extraction stands and what it did to which memories. message_ids is
-- a JSON array of the client's message ids; results a JSON array of
-- {memory_id, change, memory} (memory as in memory_events.after).
CREATE TABLE IF NOT EXISTS add_events (
    id              TEXT         COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id       TEXT         NOT NULL,
    user_id         VARCHAR(128) NOT NULL,
    conversation_id TEXT,
    message_ids     JSONB        NOT NULL,
    status          VARCHAR(20)  NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
    results         JSONB        NOT NULL,
    error           TEXT,
    created_at      TIMESTAMPTZ  NOT NULL,
    updated_at      TIMESTAMPTZ  NOT NULL
);
--bun:split
-- A tenant's adds newest first, and one user's (listing, erasure).
CREATE INDEX IF NOT EXISTS add_events_tenant_idx ON add_events (tenant_id, created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS add_events_user_idx ON add_events (tenant_id, user_id, created_at, id);
