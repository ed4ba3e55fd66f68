-- A key may reach one user of its tenant only (NULL: every user of the tenant).
ALTER TABLE api_keys ADD COLUMN user_id TEXT;
--bun:split
-- Bumped in the transaction of every key creation and revocation and read on every
-- request with a stored key, so that every process drops what it cached of keys
-- at once.
CREATE TABLE IF NOT EXISTS api_key_generation (
    id         INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    generation BIGINT  NOT NULL
);
--bun:split
INSERT INTO api_key_generation (id, generation) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
