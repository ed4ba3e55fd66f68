-- The organisation graph of each tenant: one row per user with their place and
-- manager (NULL at the top). Writes of one tenant are serialised and check for
-- cycles in the same transaction.
CREATE TABLE IF NOT EXISTS org_members (
    tenant_id    TEXT          NOT NULL,
    user_id      VARCHAR(128)  COLLATE "C" NOT NULL,
    display_name VARCHAR(100)  NOT NULL,
    department   VARCHAR(100),
    position     VARCHAR(100),
    manager_id   VARCHAR(128),
    created_at   TIMESTAMPTZ   NOT NULL,
    updated_at   TIMESTAMPTZ   NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);
--bun:split
-- The reports of a manager (erasure detaches them).
CREATE INDEX IF NOT EXISTS org_members_manager_idx ON org_members (tenant_id, manager_id);
--bun:split
-- Name resolution: the normalised names, given names, nicknames and pinyin forms a
-- user is found by, per source (org entry, profile), each with its strength.
CREATE TABLE IF NOT EXISTS org_name_keys (
    tenant_id TEXT          NOT NULL,
    user_id   VARCHAR(128)  COLLATE "C" NOT NULL,
    source    VARCHAR(20)   NOT NULL,
    name_key  VARCHAR(200)  COLLATE "C" NOT NULL,
    strength  INTEGER       NOT NULL,
    PRIMARY KEY (tenant_id, user_id, source, name_key)
);
--bun:split
-- Covering: a lookup reads the index only.
CREATE INDEX IF NOT EXISTS org_name_keys_lookup_idx ON org_name_keys (tenant_id, name_key, user_id, strength);
