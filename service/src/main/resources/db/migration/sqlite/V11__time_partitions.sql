-- PostgreSQL's archive is partitioned by time from V11 (see its V11), which makes every unique
-- key name start_ns and frame_chunk carry its observation's start. SQLite keeps one file and
-- deletes by row, but takes the same columns and keys, so JdbcArchive speaks one SQL to both.
ALTER TABLE frame_chunk ADD COLUMN start_ns BIGINT;
UPDATE frame_chunk SET start_ns = (SELECT o.start_ns FROM observation o WHERE o.id = frame_chunk.observation_id);
DROP INDEX observation_result_key;
CREATE UNIQUE INDEX observation_result_key ON observation (result_key, start_ns);
