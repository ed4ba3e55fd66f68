-- Messages of conversations (with their extraction status): the
-- input of the extraction pipeline and the episodic memory. message_id is the
-- client's id, unique per tenant and user; id is engram's arrival order (a ULID),
-- which breaks ties between messages said at the same time.
CREATE TABLE IF NOT EXISTS conversation_messages (
    id              TEXT          COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id       TEXT          NOT NULL,
    user_id         VARCHAR(128)  NOT NULL,
    message_id      VARCHAR(128)  COLLATE "C" NOT NULL,
    conversation_id VARCHAR(128)  COLLATE "C" NOT NULL,
    role            VARCHAR(20)   NOT NULL,
    name            VARCHAR(128),
    content         TEXT          NOT NULL,
    created_at      TIMESTAMPTZ   NOT NULL,
    received_at     TIMESTAMPTZ   NOT NULL,

    status          VARCHAR(20)   NOT NULL,
    skip_reason     VARCHAR(64),
    attempts        INTEGER       NOT NULL DEFAULT 0,
    error           TEXT,
    process_after   TIMESTAMPTZ,
    processed_at    TIMESTAMPTZ,
    claimed_by      TEXT,
    claim_until     TIMESTAMPTZ,

    CONSTRAINT conversation_messages_scope_id_uq UNIQUE (tenant_id, user_id, message_id)
);
--bun:split
-- The worker's poll and rescan: due messages, oldest deadline first.
CREATE INDEX IF NOT EXISTS conversation_messages_due_idx
    ON conversation_messages (process_after) WHERE status IN ('PENDING', 'FAILED');
--bun:split
-- A conversation in order (context for extraction, claims of whole conversations).
CREATE INDEX IF NOT EXISTS conversation_messages_conversation_idx
    ON conversation_messages (tenant_id, user_id, conversation_id, created_at, id);
--bun:split
-- Metrics: messages by status, the oldest PENDING one.
CREATE INDEX IF NOT EXISTS conversation_messages_status_idx
    ON conversation_messages (status, received_at);
