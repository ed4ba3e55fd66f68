-- Background jobs of a user (consolidation), claimed by workers with a lease like
-- messages. counts holds what the job did, as a JSON object in TEXT.
CREATE TABLE IF NOT EXISTS jobs (
    id          TEXT         NOT NULL PRIMARY KEY,
    tenant_id   TEXT         NOT NULL,
    user_id     VARCHAR(128) NOT NULL,
    kind        VARCHAR(40)  NOT NULL,
    status      VARCHAR(20)  NOT NULL,
    attempts    INTEGER      NOT NULL DEFAULT 0,
    error       TEXT,
    counts      TEXT CHECK (counts IS NULL OR json_valid(counts)),
    created_at  TIMESTAMP    NOT NULL,
    started_at  TIMESTAMP,
    finished_at TIMESTAMP,
    claimed_by  TEXT,
    claim_until TIMESTAMP
);
--bun:split
-- Workers take the oldest open job first.
CREATE INDEX IF NOT EXISTS jobs_open_idx
    ON jobs (created_at) WHERE status IN ('QUEUED', 'RUNNING');
--bun:split
-- One queued job per user and kind is enough: a second request joins it.
CREATE INDEX IF NOT EXISTS jobs_scope_idx
    ON jobs (tenant_id, user_id, kind, status);
