package org.nmws.service.archive;

/**
 * The archive contract on a real PostgreSQL server (scripts/test.sh starts one and hands its
 * URL in). Each store is a schema of its own, dropped afterwards. Without a server this
 * fails rather than skips, unless -Dnmws.test.postgres=skip asks otherwise.
 */
class PostgresArchiveTest extends ArchiveContractTest {
    @Override
    TestArchives.Store newStore(String target) throws Exception {
        return TestArchives.postgresStore(target);
    }
}
