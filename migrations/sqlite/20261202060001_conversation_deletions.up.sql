-- A deleted conversation (a deleted session's stored messages): a message of it
-- created at or before deleted_at is refused from then on, so a turn relayed late
-- (queued in Redis before the delete) does not bring the chat back. Purged with
-- the user.
CREATE TABLE IF NOT EXISTS conversation_deletions (
    tenant_id       TEXT         NOT NULL,
    user_id         VARCHAR(128) NOT NULL,
    conversation_id TEXT         NOT NULL,
    deleted_at      TIMESTAMP    NOT NULL,
    PRIMARY KEY (tenant_id, user_id, conversation_id)
);
