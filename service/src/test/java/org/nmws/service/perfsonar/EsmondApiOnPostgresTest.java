package org.nmws.service.perfsonar;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.nmws.service.archive.TestArchives;

/**
 * Every esmond API test of EsmondApiTest again with the service on PostgreSQL (a schema of its
 * own in the test server, dropped after): esmond's queries read the archive's series, keys and
 * summaries through SQL that differs by vendor.
 */
class EsmondApiOnPostgresTest extends EsmondApiTest {
    private static String base;
    private static String schema;

    @BeforeAll
    static void start() throws Exception {
        base = TestArchives.postgresUrl();
        schema = "esmond_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        startWith("--spring.datasource.url=" + base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema);
    }

    @AfterAll
    static void stop() {
        EsmondApiTest.stop();
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA " + schema + " CASCADE");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot drop the test schema " + schema, e);
        }
    }
}
