-- User profiles, per tenant: the declared fields (and identity slots),
-- the fields the worker derives, and where each declared value came from
-- (field_sources). Lists are JSON arrays in TEXT. profile_version only increases;
-- writes check it, so a PATCH and a derivation never lose each other's change.
CREATE TABLE IF NOT EXISTS user_profiles (
    tenant_id             TEXT          NOT NULL,
    user_id               VARCHAR(128)  NOT NULL CHECK (length(user_id) <= 128),
    display_name          VARCHAR(100),
    department_name       VARCHAR(100),
    position              VARCHAR(100),
    role_tags             TEXT          NOT NULL DEFAULT '[]' CHECK (json_valid(role_tags)),
    total_conversations   INTEGER       NOT NULL DEFAULT 0,
    total_workflows_used  INTEGER       NOT NULL DEFAULT 0,
    favorite_workflows    TEXT          NOT NULL DEFAULT '[]' CHECK (json_valid(favorite_workflows)),
    preferred_work_hours  TEXT          NOT NULL DEFAULT '[]' CHECK (json_valid(preferred_work_hours)),
    work_style_tags       TEXT          NOT NULL DEFAULT '[]' CHECK (json_valid(work_style_tags)),
    derived_work_style    TEXT          NOT NULL DEFAULT '[]' CHECK (json_valid(derived_work_style)),
    common_topics         TEXT          NOT NULL DEFAULT '[]' CHECK (json_valid(common_topics)),
    expertise_areas       TEXT          NOT NULL DEFAULT '[]' CHECK (json_valid(expertise_areas)),
    total_tasks_assigned  INTEGER       NOT NULL DEFAULT 0,
    total_tasks_created   INTEGER       NOT NULL DEFAULT 0,
    total_tasks_completed INTEGER       NOT NULL DEFAULT 0,
    avg_task_completion_h REAL          NOT NULL DEFAULT 0,
    task_completion_rate  REAL          NOT NULL DEFAULT 0,
    preferred_llm_model   VARCHAR(50),
    preferred_language    VARCHAR(20),
    communication_tone    VARCHAR(50),
    time_zone             VARCHAR(64),
    nickname              VARCHAR(50),
    preferred_name        VARCHAR(50),
    ai_name               VARCHAR(50),
    emoji                 VARCHAR(16),
    field_sources         TEXT          NOT NULL DEFAULT '{}' CHECK (json_valid(field_sources)),
    profile_version       INTEGER       NOT NULL,
    created_at            TIMESTAMP     NOT NULL,
    last_updated_at       TIMESTAMP     NOT NULL,
    last_conversation_at  TIMESTAMP,
    derived_at            TIMESTAMP,
    PRIMARY KEY (tenant_id, user_id)
);
--bun:split
-- One pending refresh of a user's derived fields (debounced, coalesced), claimed
-- by workers with a lease. generation counts marks, so a mark that arrives during
-- a run survives the run's finish.
CREATE TABLE IF NOT EXISTS profile_refreshes (
    tenant_id       TEXT         NOT NULL,
    user_id         VARCHAR(128) NOT NULL,
    first_marked_at TIMESTAMP    NOT NULL,
    due_at          TIMESTAMP    NOT NULL,
    generation      INTEGER      NOT NULL,
    claimed_by      TEXT,
    claim_until     TIMESTAMP,
    PRIMARY KEY (tenant_id, user_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS profile_refreshes_due_idx ON profile_refreshes (due_at);
