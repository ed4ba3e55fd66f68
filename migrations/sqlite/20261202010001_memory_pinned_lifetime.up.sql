-- pinned: the memory is a standing one, put in front of the agent whatever the
-- question. ttl_days: the lifetime expires_at was set from (0: never expires), so
-- restating a memory restarts its expiry for as long again; NULL on rows written
-- before it was kept (the store derives it from expires_at and updated_at).
ALTER TABLE long_term_memories ADD COLUMN pinned BOOLEAN NOT NULL DEFAULT FALSE;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN ttl_days INTEGER CHECK (ttl_days IS NULL OR (ttl_days >= 0 AND ttl_days <= 36500));
--bun:split
-- The context call reads a user's standing memories on every call: those of
-- importance at or above the configured threshold walk long_term_memories_top_idx;
-- pinned ones and constraints below it walk this one, which holds only them, so
-- neither read visits the user's other memories.
CREATE INDEX IF NOT EXISTS long_term_memories_standing_idx
    ON long_term_memories (tenant_id, user_id, importance, updated_at, id)
    WHERE pinned OR memory_type = 'constraint';
