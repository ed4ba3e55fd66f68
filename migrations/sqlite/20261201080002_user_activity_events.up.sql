-- Activity events of users (tasks assigned, created and completed, workflow runs),
-- idempotent on the client's event_id per user. flow_id is '' for events without a
-- flow, so tallies group them together. They feed the task statistics and
-- favourite workflows of the profile.
CREATE TABLE IF NOT EXISTS user_activity_events (
    tenant_id   TEXT          NOT NULL,
    user_id     VARCHAR(128)  NOT NULL,
    event_id    VARCHAR(128)  NOT NULL,
    kind        VARCHAR(40)   NOT NULL,
    at          TIMESTAMP   NOT NULL,
    flow_id     VARCHAR(128)  NOT NULL DEFAULT '',
    flow_name   VARCHAR(100),
    duration_h  REAL,
    received_at TIMESTAMP   NOT NULL,
    PRIMARY KEY (tenant_id, user_id, event_id)
);
--bun:split
-- Tallies of one user by kind and flow.
CREATE INDEX IF NOT EXISTS user_activity_events_tally_idx
    ON user_activity_events (tenant_id, user_id, kind, flow_id, at);
