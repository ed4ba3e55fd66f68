-- Conversations of agents that keep their history through the OpenAI
-- Conversations API: each conversation is one engram session.
CREATE TABLE IF NOT EXISTS agent_conversations (
    id          TEXT          NOT NULL PRIMARY KEY,
    tenant_id   TEXT          NOT NULL,
    user_id     VARCHAR(128)  NOT NULL,
    created_at  TIMESTAMP     NOT NULL,
    metadata    TEXT          NOT NULL CHECK (json_valid(metadata))
);
--bun:split
CREATE INDEX IF NOT EXISTS agent_conversations_user_idx ON agent_conversations (tenant_id, user_id);
--bun:split
-- The items of a conversation, each kept as the client sent it (raw), in the
-- order they were added (seq); role and text are what the session records.
CREATE TABLE IF NOT EXISTS agent_conversation_items (
    conversation_id TEXT          NOT NULL,
    seq             INTEGER       NOT NULL,
    id              TEXT          NOT NULL,
    tenant_id       TEXT          NOT NULL,
    user_id         VARCHAR(128)  NOT NULL,
    type            VARCHAR(64)   NOT NULL,
    role            VARCHAR(32)   NOT NULL,
    text            TEXT          NOT NULL,
    raw             TEXT          NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS agent_conversation_items_id_idx ON agent_conversation_items (conversation_id, id);
--bun:split
CREATE INDEX IF NOT EXISTS agent_conversation_items_user_idx ON agent_conversation_items (tenant_id, user_id);
