-- User profiles, per tenant: the declared fields (and identity slots),
-- the fields the worker derives, and where each declared value came from
-- (field_sources). Lists are JSON arrays. profile_version only increases; writes
-- check it, so a PATCH and a derivation never lose each other's change.
CREATE TABLE IF NOT EXISTS user_profiles (
    tenant_id             TEXT              NOT NULL,
    user_id               VARCHAR(128)      NOT NULL,
    display_name          VARCHAR(100),
    department_name       VARCHAR(100),
    position              VARCHAR(100),
    role_tags             JSONB             NOT NULL DEFAULT '[]',
    total_conversations   INTEGER           NOT NULL DEFAULT 0,
    total_workflows_used  INTEGER           NOT NULL DEFAULT 0,
    favorite_workflows    JSONB             NOT NULL DEFAULT '[]',
    preferred_work_hours  JSONB             NOT NULL DEFAULT '[]',
    work_style_tags       JSONB             NOT NULL DEFAULT '[]',
    derived_work_style    JSONB             NOT NULL DEFAULT '[]',
    common_topics         JSONB             NOT NULL DEFAULT '[]',
    expertise_areas       JSONB             NOT NULL DEFAULT '[]',
    total_tasks_assigned  INTEGER           NOT NULL DEFAULT 0,
    total_tasks_created   INTEGER           NOT NULL DEFAULT 0,
    total_tasks_completed INTEGER           NOT NULL DEFAULT 0,
    avg_task_completion_h DOUBLE PRECISION  NOT NULL DEFAULT 0,
    task_completion_rate  DOUBLE PRECISION  NOT NULL DEFAULT 0,
    preferred_llm_model   VARCHAR(50),
    preferred_language    VARCHAR(20),
    communication_tone    VARCHAR(50),
    time_zone             VARCHAR(64),
    nickname              VARCHAR(50),
    preferred_name        VARCHAR(50),
    ai_name               VARCHAR(50),
    emoji                 VARCHAR(16),
    field_sources         JSONB             NOT NULL DEFAULT '{}',
    profile_version       BIGINT            NOT NULL,
    created_at            TIMESTAMPTZ       NOT NULL,
    last_updated_at       TIMESTAMPTZ       NOT NULL,
    last_conversation_at  TIMESTAMPTZ,
    derived_at            TIMESTAMPTZ,
    PRIMARY KEY (tenant_id, user_id)
);
--bun:split
-- One pending refresh of a user's derived fields (debounced, coalesced), claimed
-- by workers with a lease. generation counts marks, so a mark that arrives during
-- a run survives the run's finish.
CREATE TABLE IF NOT EXISTS profile_refreshes (
    tenant_id       TEXT         NOT NULL,
    user_id         VARCHAR(128) NOT NULL,
    first_marked_at TIMESTAMPTZ  NOT NULL,
    due_at          TIMESTAMPTZ  NOT NULL,
    generation      BIGINT       NOT NULL,
    claimed_by      TEXT,
    claim_until     TIMESTAMPTZ,
    PRIMARY KEY (tenant_id, user_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS profile_refreshes_due_idx ON profile_refreshes (due_at);
