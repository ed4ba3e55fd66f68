-- Keys can be revoked (kept for the record, never authenticating again) and say
-- when they were last used (written at most about once a minute per key).
ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMP;
--bun:split
ALTER TABLE api_keys ADD COLUMN revoked_at TIMESTAMP;
