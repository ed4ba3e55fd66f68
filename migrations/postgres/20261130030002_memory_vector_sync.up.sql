-- The indexer's bookkeeping on memories, beside the vector_* columns:
-- claims with a lease (several indexers share the work, FOR UPDATE SKIP LOCKED),
-- the retry schedule of failed syncs, and when a reindex queued the row (the
-- backlog's age).
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS vector_attempts INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS vector_next_attempt_at TIMESTAMPTZ;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS vector_claimed_by TEXT;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS vector_claim_until TIMESTAMPTZ;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN IF NOT EXISTS vector_queued_at TIMESTAMPTZ;
--bun:split
-- What the indexer scans: only the rows waiting for it, oldest change first. Most
-- rows are SYNCED, so this stays small however many memories there are.
CREATE INDEX IF NOT EXISTS long_term_memories_vector_due_idx
    ON long_term_memories (updated_at) WHERE vector_status IN ('DIRTY', 'FAILED');
