package org.nmws.service.grid;

import java.nio.file.Path;
import org.nmws.service.archive.TestArchives;

/** The grid's cells, ages and states as {@link MeshGridTest} checks them, from a PostgreSQL archive. */
class MeshGridPostgresTest extends MeshGridTest {
    @Override
    TestArchives.Store newStore(Path dir) throws Exception {
        return TestArchives.postgresStore(null);
    }
}
