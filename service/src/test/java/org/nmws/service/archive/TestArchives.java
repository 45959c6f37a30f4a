package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/** Real archives for tests: a migrated SQLite file in a temporary directory, or a fresh PostgreSQL schema. */
public final class TestArchives {
    /** Environment variable scripts/test.sh sets to the JDBC URL of the PostgreSQL it started. */
    public static final String PG_URL_ENV = "NMWS_TEST_PG_URL";
    /** The same as a system property (-Dnmws.test.postgres.url=...), for IDE runs. */
    public static final String PG_URL_PROPERTY = "nmws.test.postgres.url";
    /** -Dnmws.test.postgres=skip leaves the PostgreSQL tests out of a local run; CI never sets it. */
    public static final String PG_OPT_OUT_PROPERTY = "nmws.test.postgres";

    private TestArchives() {
    }

    public static JdbcArchive sqlite(Path dir) {
        String url = "jdbc:sqlite:" + dir.resolve("test.db");
        SingleConnectionDataSource ds = new SingleConnectionDataSource(url, true);
        migrate(ds, "sqlite", null);
        return archive(ds);
    }

    /** A migrated store the test closes; on the production pool settings (WAL, synchronous=FULL). */
    public record Store(JdbcArchive archive, JdbcTemplate jdbc, String url, AutoCloseable cleanup) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            cleanup.close();
        }
    }

    public static Store sqliteStore(Path dir, String target) {
        String url = "jdbc:sqlite:" + dir.resolve("archive-" + UUID.randomUUID() + ".db");
        HikariDataSource ds = ArchiveDataSources.open(url, null, null);
        migrate(ds, "sqlite", target);
        return new Store(archive(ds), new JdbcTemplate(ds), url, ds::close);
    }

    /**
     * A store in a new schema of the test PostgreSQL, dropped on close. Fails when no
     * PostgreSQL was handed in: a missing database must fail CI, not pass it silently.
     */
    public static Store postgresStore(String target) throws SQLException {
        String base = postgresUrl();
        String schema = "t_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        HikariDataSource ds = ArchiveDataSources.open(url, null, null);
        migrate(ds, "postgresql", target);
        return new Store(archive(ds), new JdbcTemplate(ds), url, () -> {
            ds.close();
            try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        });
    }

    /** The JDBC URL of the test PostgreSQL; fails the test when none is configured (or aborts it on the explicit opt-out). */
    public static String postgresUrl() {
        String url = System.getenv(PG_URL_ENV);
        if (url == null || url.isBlank()) {
            url = System.getProperty(PG_URL_PROPERTY);
        }
        if (url == null || url.isBlank()) {
            Assumptions.assumeFalse("skip".equals(System.getProperty(PG_OPT_OUT_PROPERTY)),
                    "PostgreSQL archive tests skipped on request (-D" + PG_OPT_OUT_PROPERTY + "=skip)");
            Assertions.fail("no PostgreSQL for the archive tests: set " + PG_URL_ENV + " to a JDBC URL (scripts/test.sh"
                    + " starts a server and sets it; scripts/test-postgres.sh start DIR prints one), or pass -D"
                    + PG_OPT_OUT_PROPERTY + "=skip to leave these tests out of a local run");
        }
        return url;
    }

    public static void migrate(DataSource ds, String vendor, String target) {
        var config = Flyway.configure().dataSource(ds).locations("classpath:db/migration/" + vendor)
                .javaMigrations(new V3__Pack_frame_rows(), new V6__Split_environments());
        if (target != null) {
            config.target(target);
        }
        config.load().migrate();
    }

    public static JdbcArchive archive(DataSource ds) {
        return new JdbcArchive(new JdbcTemplate(ds), new TransactionTemplate(new DataSourceTransactionManager(ds)),
                new ObjectMapper().registerModule(new JavaTimeModule()));
    }
}
