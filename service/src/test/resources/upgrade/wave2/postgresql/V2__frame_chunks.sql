-- Raw frames move from one row per frame to packed chunks (FrameCodec): the per-frame rows
-- cost ~50 bytes each and capped ingest; V3 packs the rows already stored and drops the table.
CREATE TABLE frame_chunk (
    observation_id BIGINT  NOT NULL REFERENCES observation (id) ON DELETE CASCADE,
    chunk_no       INTEGER NOT NULL,
    frame_count    INTEGER NOT NULL,
    data           BYTEA   NOT NULL,
    PRIMARY KEY (observation_id, chunk_no)
);
-- Chunks are varint-packed already: pglz would spend CPU on every write to gain nothing.
ALTER TABLE frame_chunk ALTER COLUMN data SET STORAGE EXTERNAL;

-- How many raw frames are still kept for the observation; 0 once retention removed them.
ALTER TABLE observation ADD COLUMN raw_frames INTEGER NOT NULL DEFAULT 0;

-- Retention walks only observations that still hold raw data, and summaries by time.
CREATE INDEX observation_raw_start ON observation (start_ns) WHERE raw_frames > 0;
CREATE INDEX observation_start ON observation (start_ns);
