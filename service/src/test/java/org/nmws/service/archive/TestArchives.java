package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.nio.file.Path;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/** Real archives for tests: a migrated SQLite file in a temporary directory. */
public final class TestArchives {
    private TestArchives() {
    }

    public static JdbcArchive sqlite(Path dir) {
        String url = "jdbc:sqlite:" + dir.resolve("test.db");
        SingleConnectionDataSource ds = new SingleConnectionDataSource(url, true);
        Flyway.configure().dataSource(ds).locations("classpath:db/migration/sqlite").load().migrate();
        return new JdbcArchive(new JdbcTemplate(ds), new TransactionTemplate(new DataSourceTransactionManager(ds)),
                new ObjectMapper().registerModule(new JavaTimeModule()));
    }
}
