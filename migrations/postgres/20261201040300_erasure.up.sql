-- Erasure (README "Erasure"). An erase_user job is the user's
-- tombstone while open and the content-free audit record once DONE (its user_id is
-- then the user's fingerprint, a SHA-256 hex); requested_by says who asked. The
-- tombstone check reads jobs_scope_idx (tenant_id, user_id, kind, status).
ALTER TABLE jobs ADD COLUMN requested_by VARCHAR(128);
--bun:split
-- GET /v1/users/{user}/messages without a conversation: a user's messages oldest
-- first (when said, then arrival).
CREATE INDEX IF NOT EXISTS conversation_messages_user_time_idx
    ON conversation_messages (tenant_id, user_id, created_at, id);
--bun:split
-- Lexical compaction: deleted documents stay as tombstones only for the last
-- generations of a user. horizon is the newest generation whose tombstones are
-- gone: a reader that has seen less reloads the user instead of catching up.
ALTER TABLE lexical_users ADD COLUMN horizon BIGINT NOT NULL DEFAULT 0;
--bun:split
CREATE INDEX IF NOT EXISTS lexical_docs_tombstones_idx
    ON lexical_docs (tenant_id, user_id, gen) WHERE deleted = TRUE;
--bun:split
-- The generation an erased user had reached, by fingerprint (no user id): when the
-- user is written again, its generations start above it, so a reader that still
-- holds the erased documents reloads instead of catching up.
CREATE TABLE IF NOT EXISTS lexical_horizons (
    tenant_id TEXT        NOT NULL,
    user_hash VARCHAR(64) NOT NULL,
    gen       BIGINT      NOT NULL,
    PRIMARY KEY (tenant_id, user_hash)
);
--bun:split
-- An erasure deletes the user's vectors of every model from the embedded index's
-- table (its key starts with the model).
CREATE INDEX IF NOT EXISTS local_vectors_user_idx ON local_vectors (tenant_id, user_id);
