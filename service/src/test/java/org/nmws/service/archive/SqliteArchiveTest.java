package org.nmws.service.archive;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The archive contract on SQLite, the embedded default. */
class SqliteArchiveTest extends ArchiveContractTest {
    @TempDir
    Path dir;

    @Override
    TestArchives.Store newStore(String target) {
        return TestArchives.sqliteStore(dir, target);
    }
}
