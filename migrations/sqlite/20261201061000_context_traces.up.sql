-- Traces of context calls (README "Context"): one row per call, the trace itself as
-- JSON in body (the query, the injected items with their snippets, every raw hit
-- with the reason a dropped one was dropped, timings). Read by id within a tenant
-- and as a user's latest (ids sort by time); swept by the scheduler once older than
-- ENGRAM_TRACE_RETENTION_DAYS; purged with the user.
CREATE TABLE IF NOT EXISTS context_traces (
    id        TEXT          NOT NULL PRIMARY KEY,
    tenant_id TEXT          NOT NULL,
    user_id   VARCHAR(128)  NOT NULL,
    at        TIMESTAMP     NOT NULL,
    body      TEXT          NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS context_traces_user_idx ON context_traces (tenant_id, user_id, id);
--bun:split
CREATE INDEX IF NOT EXISTS context_traces_at_idx ON context_traces (at);
