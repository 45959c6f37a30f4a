-- Who made a schedule: its runs carry that identity and its limits, and only it (or an admin)
-- may replace or delete it. NULL: the service's own (its configuration, the mesh file).
ALTER TABLE schedule ADD COLUMN owner TEXT;
ALTER TABLE schedule ADD COLUMN owner_address TEXT;
