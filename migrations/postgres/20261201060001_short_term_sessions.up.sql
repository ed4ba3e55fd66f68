-- Short-term sessions when they are kept in SQL: the embedded default, and the
-- fallback while Redis is unreachable. One row per (tenant, user, flow, session)
-- holds the meta, the summary, the revision and the fold queue; the messages and
-- the recent exchange ids (idempotent retries) have tables of their own. Expiry is
-- emulated: rows past their time are invisible to reads and swept by the scheduler.
-- created_at is NULL when the meta expired and only the summary is left.
CREATE TABLE IF NOT EXISTS short_term_sessions (
    tenant_id          TEXT          NOT NULL,
    user_id            VARCHAR(128)  COLLATE "C" NOT NULL,
    flow_id            VARCHAR(128)  COLLATE "C" NOT NULL,
    session_id         VARCHAR(128)  COLLATE "C" NOT NULL,
    flow_name          VARCHAR(128)  NOT NULL DEFAULT '',
    created_at         TIMESTAMPTZ,
    last_active_at     TIMESTAMPTZ,
    message_count      BIGINT        NOT NULL DEFAULT 0,
    held               INTEGER       NOT NULL DEFAULT 0,
    meta_expires_at    TIMESTAMPTZ,
    summary            TEXT,
    summary_version    BIGINT        NOT NULL DEFAULT 0,
    summary_at         TIMESTAMPTZ,
    summary_expires_at TIMESTAMPTZ,
    rev                BIGINT        NOT NULL DEFAULT 0,
    fold_due_at        TIMESTAMPTZ,
    fold_holder        TEXT,
    fold_claim_until   TIMESTAMPTZ,
    PRIMARY KEY (tenant_id, user_id, flow_id, session_id)
);
--bun:split
-- The user's index: sessions by last activity, newest first.
CREATE INDEX IF NOT EXISTS short_term_sessions_active_idx
    ON short_term_sessions (tenant_id, user_id, last_active_at DESC);
--bun:split
-- The fold queue.
CREATE INDEX IF NOT EXISTS short_term_sessions_fold_idx
    ON short_term_sessions (fold_due_at) WHERE fold_due_at IS NOT NULL;
--bun:split
-- The sweep: sessions whose meta or summary expired.
CREATE INDEX IF NOT EXISTS short_term_sessions_meta_expiry_idx
    ON short_term_sessions (meta_expires_at) WHERE created_at IS NOT NULL;
--bun:split
CREATE INDEX IF NOT EXISTS short_term_sessions_summary_expiry_idx
    ON short_term_sessions (summary_expires_at) WHERE created_at IS NULL;
--bun:split
-- seq orders a session's messages (1, 2, … from the meta's message_count).
CREATE TABLE IF NOT EXISTS short_term_messages (
    tenant_id   TEXT          NOT NULL,
    user_id     VARCHAR(128)  COLLATE "C" NOT NULL,
    flow_id     VARCHAR(128)  COLLATE "C" NOT NULL,
    session_id  VARCHAR(128)  COLLATE "C" NOT NULL,
    seq         BIGINT        NOT NULL,
    message_id  VARCHAR(160)  COLLATE "C" NOT NULL,
    exchange_id VARCHAR(128)  COLLATE "C" NOT NULL,
    role        VARCHAR(20)   NOT NULL,
    content     TEXT          NOT NULL,
    at          TIMESTAMPTZ   NOT NULL,
    PRIMARY KEY (tenant_id, user_id, flow_id, session_id, seq)
);
--bun:split
CREATE TABLE IF NOT EXISTS short_term_exchanges (
    tenant_id   TEXT          NOT NULL,
    user_id     VARCHAR(128)  COLLATE "C" NOT NULL,
    flow_id     VARCHAR(128)  COLLATE "C" NOT NULL,
    session_id  VARCHAR(128)  COLLATE "C" NOT NULL,
    exchange_id VARCHAR(128)  COLLATE "C" NOT NULL,
    seq         BIGINT        NOT NULL,
    PRIMARY KEY (tenant_id, user_id, flow_id, session_id, exchange_id)
);
