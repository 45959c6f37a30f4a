-- Regular measurements: a schedule is a test repeated every period (with a random slip so
-- points do not synchronise); each planned repetition is a run, keyed by its slot so that a
-- point that restarts plans the same slots again and never runs one twice.
CREATE TABLE schedule (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    name            TEXT    NOT NULL UNIQUE,
    point           TEXT    NOT NULL,
    characteristic  TEXT    NOT NULL,
    dst             TEXT    NOT NULL,
    parameters      TEXT    NOT NULL,
    period_ms       BIGINT  NOT NULL,
    slip_ms         BIGINT  NOT NULL,
    start_ms        BIGINT  NOT NULL,
    end_ms          BIGINT,
    test_class      TEXT    NOT NULL,
    enabled         BOOLEAN NOT NULL,
    created_ms      BIGINT  NOT NULL
);

CREATE TABLE scheduled_run (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    schedule_id     BIGINT  NOT NULL REFERENCES schedule (id) ON DELETE CASCADE,
    slot            BIGINT  NOT NULL,
    planned_ms      BIGINT  NOT NULL,
    status          TEXT    NOT NULL,
    started_ms      BIGINT,
    ended_ms        BIGINT,
    reason          TEXT,
    observation_id  BIGINT,
    UNIQUE (schedule_id, slot)
);
CREATE INDEX scheduled_run_due ON scheduled_run (status, planned_ms);
