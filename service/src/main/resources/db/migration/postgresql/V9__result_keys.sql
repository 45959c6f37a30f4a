-- Exactly once: every result carries a key (a UUID) chosen when it was measured. A result
-- the archive could not keep at once is held on the measuring point's disk and written
-- later under the same key; the unique index turns a second write (a retry after a crash
-- between the insert and the spool file's removal) into a no-op. Rows written before V9
-- have no key (NULLs never conflict).
ALTER TABLE observation ADD COLUMN result_key TEXT;
CREATE UNIQUE INDEX observation_result_key ON observation (result_key);
-- The key a scheduled run's result is written under, set when the run is claimed: a run
-- whose result reached the archive (at once, or later from the spool) is found by it, even
-- when the point was killed before it could record the run as done.
ALTER TABLE scheduled_run ADD COLUMN result_key TEXT;
CREATE INDEX scheduled_run_result_key ON scheduled_run (result_key);
