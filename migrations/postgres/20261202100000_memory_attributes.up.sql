-- The agent, app and run a memory is also about, beside its user, and the
-- client's metadata (a JSON object, compact, keys sorted). A message carries the
-- same, and extraction copies them onto the memories it writes. NULL: not named.
-- metadata is TEXT, not JSONB, so it reads back byte for byte as written (JSONB
-- reorders keys); filters cast it to JSONB.
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS agent_id VARCHAR(128);
--bun:split
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS app_id VARCHAR(128);
--bun:split
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS run_id VARCHAR(128);
--bun:split
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS metadata TEXT
    CHECK (metadata IS NULL OR jsonb_typeof(metadata::jsonb) = 'object');
--bun:split
-- A tenant's memories of one agent, app or run, whatever the user (the listing
-- filters of a mem0-style client name them without a user).
CREATE INDEX IF NOT EXISTS long_term_memories_agent_idx
    ON long_term_memories (tenant_id, agent_id) WHERE agent_id IS NOT NULL;
--bun:split
CREATE INDEX IF NOT EXISTS long_term_memories_app_idx
    ON long_term_memories (tenant_id, app_id) WHERE app_id IS NOT NULL;
--bun:split
CREATE INDEX IF NOT EXISTS long_term_memories_run_idx
    ON long_term_memories (tenant_id, run_id) WHERE run_id IS NOT NULL;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS agent_id VARCHAR(128);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS app_id VARCHAR(128);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS run_id VARCHAR(128);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS metadata TEXT
    CHECK (metadata IS NULL OR jsonb_typeof(metadata::jsonb) = 'object');
