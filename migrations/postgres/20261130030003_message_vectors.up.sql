-- Vector bookkeeping of conversation messages: every user and assistant message
-- gets a vector. A new row is DIRTY (the default), so ingestion needs to know
-- nothing of vectors. vector_embedding is the message's own embedding
-- (little-endian float32), kept so that its neighbours' vectors, which mix it in,
-- can be rebuilt without embedding it again; vector_model and vector_text_hash say
-- what it was made from.
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_status VARCHAR(20) NOT NULL DEFAULT 'DIRTY';
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_error TEXT;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_model VARCHAR(200);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_text_hash VARCHAR(64);
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_embedding BYTEA;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_synced_at TIMESTAMPTZ;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_attempts INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_next_attempt_at TIMESTAMPTZ;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_claimed_by TEXT;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_claim_until TIMESTAMPTZ;
--bun:split
ALTER TABLE conversation_messages ADD COLUMN IF NOT EXISTS vector_queued_at TIMESTAMPTZ;
--bun:split
-- What the indexer scans: only the messages waiting for it, oldest arrival first.
CREATE INDEX IF NOT EXISTS conversation_messages_vector_due_idx
    ON conversation_messages (received_at) WHERE vector_status IN ('DIRTY', 'FAILED');
--bun:split
-- Conversations an indexer holds (claims are per conversation).
CREATE INDEX IF NOT EXISTS conversation_messages_vector_claim_idx
    ON conversation_messages (tenant_id, user_id, conversation_id) WHERE vector_claimed_by IS NOT NULL;
