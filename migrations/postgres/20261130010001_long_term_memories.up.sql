-- Long-term memories, scoped by tenant and user.
-- varchar(n) counts characters on PostgreSQL, matching the domain's rune limits.
-- Ids and keys use the C collation: byte order, as in SQLite and Go, whatever the
-- database's locale, so listings page the same way everywhere.
CREATE TABLE IF NOT EXISTS long_term_memories (
    id                TEXT          COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id         TEXT          NOT NULL,
    user_id           VARCHAR(128)  NOT NULL,
    conversation_id   TEXT,
    source_message_id TEXT,
    source_channel    VARCHAR(40),

    memory_key        VARCHAR(160)  COLLATE "C" NOT NULL,
    memory_type       VARCHAR(40)   NOT NULL DEFAULT 'fact',
    content           VARCHAR(1000) NOT NULL,
    importance        INTEGER       NOT NULL DEFAULT 3,
    confidence        DOUBLE PRECISION NOT NULL DEFAULT 0.8,

    is_active         BOOLEAN       NOT NULL DEFAULT TRUE,
    last_accessed_at  TIMESTAMPTZ,
    expires_at        TIMESTAMPTZ,

    vector_status     VARCHAR(20)   NOT NULL DEFAULT 'DIRTY',
    vector_synced_at  TIMESTAMPTZ,
    vector_error      TEXT,
    vector_model      VARCHAR(120),
    vector_version    INTEGER,
    vector_text_hash  VARCHAR(64),

    version           BIGINT        NOT NULL DEFAULT 1,
    created_at        TIMESTAMPTZ   NOT NULL,
    updated_at        TIMESTAMPTZ   NOT NULL,

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
