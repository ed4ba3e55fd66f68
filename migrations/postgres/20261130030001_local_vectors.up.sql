-- The embedded vector index's vectors (adapters/localvec keeps them in memory and
-- loads them from here at start, so a restart does not re-embed). One index per
-- embedding model and dimension: rows of another model are never loaded, and a
-- change of model is a reindex. vector holds little-endian float32 values.
CREATE TABLE IF NOT EXISTS local_vectors (
    model           VARCHAR(200)  COLLATE "C" NOT NULL,
    dim             INTEGER       NOT NULL,
    tenant_id       TEXT          COLLATE "C" NOT NULL,
    id              TEXT          COLLATE "C" NOT NULL,
    user_id         TEXT          NOT NULL,
    kind            VARCHAR(20)   NOT NULL,
    memory_type     VARCHAR(40),
    conversation_id TEXT,
    at              TIMESTAMPTZ   NOT NULL,
    vector          BYTEA         NOT NULL,
    PRIMARY KEY (model, dim, tenant_id, id)
);
