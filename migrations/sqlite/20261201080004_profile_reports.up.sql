-- Evaluation reports, stored with every fact they were written from (facts) and
-- the ones they rest on (facts_used), so a later reader sees what they were based on.
CREATE TABLE IF NOT EXISTS profile_reports (
    id              TEXT          NOT NULL PRIMARY KEY,
    tenant_id       TEXT          NOT NULL,
    user_id         VARCHAR(128)  NOT NULL,
    actor           VARCHAR(128)  NOT NULL,
    report          TEXT          NOT NULL,
    facts           TEXT         NOT NULL CHECK (json_valid(facts)),
    facts_used      TEXT         NOT NULL CHECK (json_valid(facts_used)),
    generator       VARCHAR(20)   NOT NULL,
    model           VARCHAR(100),
    fallback_reason VARCHAR(40),
    language        VARCHAR(20)   NOT NULL,
    generated_at    TIMESTAMP   NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS profile_reports_user_idx ON profile_reports (tenant_id, user_id, id);
--bun:split
-- Who read whose profile or reports, and who was refused: no content, so it stays
-- when a user is erased.
CREATE TABLE IF NOT EXISTS profile_audit (
    id          TEXT          NOT NULL PRIMARY KEY,
    tenant_id   TEXT          NOT NULL,
    at          TIMESTAMP   NOT NULL,
    actor       VARCHAR(128)  NOT NULL,
    action      VARCHAR(40)   NOT NULL,
    target_user VARCHAR(128)  NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS profile_audit_tenant_idx ON profile_audit (tenant_id, id);
--bun:split
CREATE INDEX IF NOT EXISTS profile_audit_target_idx ON profile_audit (tenant_id, target_user, id);
