-- Lexical search (docs/BENCHMARKS.md "Search latency at scale"): the analysed terms
-- of every memory and message, one row per document, read into per-user in-memory
-- BM25 indexes by the retrieval use case. Scoring is the same Go code on SQLite and
-- PostgreSQL, so both dialects rank identically. terms holds the analysed terms in
-- order, separated by single spaces (terms never contain spaces). gen is the user's
-- generation of the last change; deleted rows stay as tombstones so that a reader
-- catching up from an older generation learns of the deletion.
CREATE TABLE IF NOT EXISTS lexical_docs (
    tenant_id       TEXT         NOT NULL,
    user_id         VARCHAR(128) NOT NULL,
    kind            VARCHAR(16)  NOT NULL,
    doc_id          TEXT COLLATE "C" NOT NULL,
    conversation_id VARCHAR(128),
    memory_type     VARCHAR(40),
    at              TIMESTAMPTZ    NOT NULL,
    expires_at      TIMESTAMPTZ,
    speaker         TEXT,
    terms           TEXT         NOT NULL,
    version         BIGINT       NOT NULL DEFAULT 0,
    gen             BIGINT       NOT NULL,
    deleted         BOOLEAN      NOT NULL DEFAULT FALSE,
    PRIMARY KEY (tenant_id, user_id, kind, doc_id)
);
--bun:split
-- A reader catches up with the changes after the generation it has seen.
CREATE INDEX IF NOT EXISTS lexical_docs_gen_idx ON lexical_docs (tenant_id, user_id, gen);
--bun:split
-- One generation per user, advanced in the transaction of every change.
CREATE TABLE IF NOT EXISTS lexical_users (
    tenant_id TEXT         NOT NULL,
    user_id   VARCHAR(128) NOT NULL,
    gen       BIGINT       NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);
--bun:split
-- Positions of the background passes (the message indexer's last message).
CREATE TABLE IF NOT EXISTS lexical_cursors (
    name       VARCHAR(64) NOT NULL PRIMARY KEY,
    position   TEXT        NOT NULL,
    updated_at TIMESTAMPTZ   NOT NULL
);
--bun:split
-- The lexical repair pass reads memories changed since its last run.
CREATE INDEX IF NOT EXISTS long_term_memories_updated_idx ON long_term_memories (updated_at, id);
