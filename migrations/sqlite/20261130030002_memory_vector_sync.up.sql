-- The indexer's bookkeeping on memories, beside the vector_* columns:
-- claims with a lease, the retry schedule of failed syncs, and when a reindex
-- queued the row (the backlog's age).
ALTER TABLE long_term_memories ADD COLUMN vector_attempts INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN vector_next_attempt_at TIMESTAMP;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN vector_claimed_by TEXT;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN vector_claim_until TIMESTAMP;
--bun:split
ALTER TABLE long_term_memories ADD COLUMN vector_queued_at TIMESTAMP;
--bun:split
-- What the indexer scans: only the rows waiting for it, oldest change first.
CREATE INDEX IF NOT EXISTS long_term_memories_vector_due_idx
    ON long_term_memories (updated_at) WHERE vector_status IN ('DIRTY', 'FAILED');
