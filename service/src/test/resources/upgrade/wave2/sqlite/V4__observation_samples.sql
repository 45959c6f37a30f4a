-- Raw sample series that are not probe frames (TCP_INFO over a TCP test), as JSON columns of
-- numbers; NULL when a test has none or after retention removed raw data.
ALTER TABLE observation ADD COLUMN samples TEXT;
