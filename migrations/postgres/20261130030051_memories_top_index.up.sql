-- full_inject reads a user's live memories most important first, then newest
-- change (LONG_TERM_MEMORY_RETRIEVE_SCAN_LIMIT of them): walking this index
-- backwards stops at the limit instead of sorting every memory of the user.
CREATE INDEX IF NOT EXISTS long_term_memories_top_idx
    ON long_term_memories (tenant_id, user_id, importance, updated_at, id);
