-- Long-term memories, scoped by tenant and user.
-- SQLite does not enforce varchar lengths, so the CHECKs hold the same limits as
-- PostgreSQL (length() counts characters). Times are UTC text in bun's format
-- ("2006-01-02 15:04:05.999999+00:00"), which sorts and compares as time does.
CREATE TABLE IF NOT EXISTS long_term_memories (
    id                TEXT          NOT NULL PRIMARY KEY,
    tenant_id         TEXT          NOT NULL,
    user_id           VARCHAR(128)  NOT NULL CHECK (length(user_id) <= 128),
    conversation_id   TEXT,
    source_message_id TEXT,
    source_channel    VARCHAR(40),

    memory_key        VARCHAR(160)  NOT NULL CHECK (length(memory_key) <= 160),
    memory_type       VARCHAR(40)   NOT NULL DEFAULT 'fact',
    content           VARCHAR(1000) NOT NULL CHECK (length(content) <= 1000),
    importance        INTEGER       NOT NULL DEFAULT 3,
    confidence        REAL          NOT NULL DEFAULT 0.8,

    is_active         BOOLEAN       NOT NULL DEFAULT TRUE,
    last_accessed_at  TIMESTAMP,
    expires_at        TIMESTAMP,

    vector_status     VARCHAR(20)   NOT NULL DEFAULT 'DIRTY',
    vector_synced_at  TIMESTAMP,
    vector_error      TEXT,
    vector_model      VARCHAR(120),
    vector_version    INTEGER,
    vector_text_hash  VARCHAR(64),

    version           BIGINT        NOT NULL DEFAULT 1,
    created_at        TIMESTAMP     NOT NULL,
    updated_at        TIMESTAMP     NOT NULL,

    -- Also the index that listing by key walks.
    CONSTRAINT long_term_memories_scope_key_uq UNIQUE (tenant_id, user_id, memory_key)
);
--bun:split
-- The indexer scans DIRTY/FAILED rows oldest change first.
CREATE INDEX IF NOT EXISTS long_term_memories_vector_status_idx
    ON long_term_memories (vector_status, updated_at);
--bun:split
-- The scheduler's TTL sweep.
CREATE INDEX IF NOT EXISTS long_term_memories_expires_at_idx
    ON long_term_memories (expires_at) WHERE expires_at IS NOT NULL;
