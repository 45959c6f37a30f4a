-- The description of where tests ran (hosts, NIC, kernel, clock source, route) repeats test
-- after test: it is kept once here, found by the SHA-256 of its JSON. Rows are never updated
-- or deleted, so their ids may be cached. observation.environment keeps what changes with each
-- test (clock error, load); V6 moves the rows written before this.
CREATE TABLE environment (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    digest      TEXT    NOT NULL UNIQUE,
    description TEXT    NOT NULL
);
ALTER TABLE observation ADD COLUMN environment_id BIGINT REFERENCES environment (id);
