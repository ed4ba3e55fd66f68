-- Keys can be revoked (kept for the record, never authenticating again) and say
-- when they were last used (written at most about once a minute per key).
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS last_used_at TIMESTAMPTZ;
--bun:split
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS revoked_at TIMESTAMPTZ;
