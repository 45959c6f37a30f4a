-- Archivers (issue 23): a schedule may name archives (pScheduler's archive specs: archiver,
-- data, ttl) that each of its results is sent to. NULL: none.
ALTER TABLE schedule ADD COLUMN archives TEXT;
-- The source a schedule's tests name (a pSConfig task's spec source, one of this point's
-- addresses), so its results say it as pScheduler's do (test.spec.source). NULL: none named.
ALTER TABLE schedule ADD COLUMN src TEXT;

-- Each distinct archive spec once, found by the SHA-256 of its canonical JSON; rows are never
-- changed, so their ids may be cached.
CREATE TABLE archive_target (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    digest      TEXT    NOT NULL UNIQUE,
    name        TEXT    NOT NULL,
    archiver    TEXT    NOT NULL,
    spec        TEXT    NOT NULL
);

-- The durable outbox: one row per result and archive it is meant for, written in the same
-- transaction as the result, removed only when the archive acknowledged it (or its ttl ran
-- out). The unique pair makes a repeated write of a result (a held result drained twice after a
-- crash) add nothing. The point that measured the result delivers it.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    result_key      TEXT    NOT NULL,
    observation_id  BIGINT  NOT NULL,
    target_id       BIGINT  NOT NULL REFERENCES archive_target (id),
    archiver        TEXT    NOT NULL,
    point           TEXT    NOT NULL,
    created_ms      BIGINT  NOT NULL,
    expires_ms      BIGINT  NOT NULL,
    next_ms         BIGINT  NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    UNIQUE (result_key, target_id)
);
CREATE INDEX outbox_due ON outbox (point, archiver, next_ms);
