-- Messages' own embeddings move out of conversation_messages into a table of their
-- own: a 2 KB blob in the message row made every status change of the message
-- (extraction claims and outcomes, vector claims, requeues) rewrite it, and SQLite
-- rewrites a whole record, overflow pages included, to change one column. id is the
-- message's row id (conversation_messages.id); model and text_hash say what the
-- embedding (little-endian float32) was made from.
CREATE TABLE IF NOT EXISTS message_embeddings (
    id        TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    model     VARCHAR(200) NOT NULL,
    text_hash VARCHAR(64)  NOT NULL,
    embedding BYTEA        NOT NULL
);
--bun:split
ALTER TABLE conversation_messages DROP COLUMN vector_embedding;
--bun:split
ALTER TABLE conversation_messages DROP COLUMN vector_text_hash;
--bun:split
ALTER TABLE conversation_messages DROP COLUMN vector_model;
