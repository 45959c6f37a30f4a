-- One row per test taken, and one row per probe frame of it.
CREATE TABLE observation (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    measurement_point TEXT    NOT NULL,
    test              TEXT    NOT NULL,
    src_host          TEXT,
    src_type          TEXT,
    dst_host          TEXT    NOT NULL,
    dst_type          TEXT    NOT NULL,
    src_address       TEXT,
    dst_address       TEXT,
    tool              TEXT    NOT NULL,
    tool_version      TEXT,
    start_ns          BIGINT  NOT NULL,
    end_ns            BIGINT  NOT NULL,
    parameters        TEXT    NOT NULL,
    environment       TEXT    NOT NULL,
    summary           TEXT    NOT NULL
);
CREATE INDEX observation_dst_host ON observation (test, dst_host, start_ns);
CREATE INDEX observation_dst_address ON observation (test, dst_address, start_ns);

CREATE TABLE frame (
    observation_id BIGINT  NOT NULL REFERENCES observation (id) ON DELETE CASCADE,
    seq            BIGINT  NOT NULL,
    send_ns        BIGINT  NOT NULL,
    value_ns       BIGINT  NOT NULL,
    bytes          INTEGER NOT NULL,
    ttl            INTEGER NOT NULL,
    PRIMARY KEY (observation_id, seq)
) WITHOUT ROWID;
