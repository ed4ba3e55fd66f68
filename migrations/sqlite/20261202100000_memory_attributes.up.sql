-- The agent, app and run a memory is also about, beside its user, and the
-- client's metadata (a JSON object, compact, keys sorted). A message carries the
-- same, and extraction copies them onto the memories it writes. NULL: not named.
ALTER TABLE long_term_memories ADD COLUMN agent_id VARCHAR(128) CHECK (agent_id IS NULL OR length(agent_id) <= 128);
--bun:split
ALTER TABLE long_term_memories ADD COLUMN app_id VARCHAR(128) CHECK (app_id IS NULL OR length(app_id) <= 128);
--bun:split
ALTER TABLE long_term_memories ADD COLUMN run_id VARCHAR(128) CHECK (run_id IS NULL OR length(run_id) <= 128);
--bun:split
ALTER TABLE long_term_memories ADD COLUMN metadata TEXT CHECK (metadata IS NULL OR (json_valid(metadata) AND json_type(metadata) = 'object'));
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
ALTER TABLE conversation_messages ADD COLUMN agent_id VARCHAR(128) CHECK (agent_id IS NULL OR length(agent_id) <= 128);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN app_id VARCHAR(128) CHECK (app_id IS NULL OR length(app_id) <= 128);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN run_id VARCHAR(128) CHECK (run_id IS NULL OR length(run_id) <= 128);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN metadata TEXT CHECK (metadata IS NULL OR (json_valid(metadata) AND json_type(metadata) = 'object'));
