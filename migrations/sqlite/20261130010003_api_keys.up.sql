-- Tenant API keys; only the sha256 of the secret is stored.
CREATE TABLE IF NOT EXISTS api_keys (
    id         TEXT        NOT NULL PRIMARY KEY,
    tenant_id  TEXT        NOT NULL,
    key_hash   VARCHAR(64) NOT NULL,
    created_at TIMESTAMP   NOT NULL,
    CONSTRAINT api_keys_key_hash_uq UNIQUE (key_hash)
);
