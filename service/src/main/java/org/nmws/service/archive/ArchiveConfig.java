package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import javax.sql.DataSource;
import org.nmws.service.NmwsProperties;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The archive's data source: SQLite under the data directory unless spring.datasource.url
 * names another database (PostgreSQL for a shared archive). Flyway migrates either from
 * db/migration/{vendor}; the retention job runs on Spring's scheduler.
 */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class ArchiveConfig {

    @Bean
    DataSource dataSource(DataSourceProperties props, NmwsProperties nmws) {
        String url = props.getUrl();
        if (url == null || url.isBlank()) {
            Path dir = nmws.dataDir().toAbsolutePath();
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create data directory " + dir, e);
            }
            url = "jdbc:sqlite:" + dir.resolve("nmws.db");
        }
        return ArchiveDataSources.open(url, props.getUsername(), props.getPassword());
    }

    @Bean
    Archive archive(JdbcTemplate jdbc, PlatformTransactionManager txManager, ObjectMapper json) {
        return new JdbcArchive(jdbc, new TransactionTemplate(txManager), json);
    }

    /** Spring Boot hands JavaMigration beans to Flyway beside the SQL migrations. */
    @Bean
    V3__Pack_frame_rows packFrameRowsMigration() {
        return new V3__Pack_frame_rows();
    }

    @Bean
    V6__Split_environments splitEnvironmentsMigration() {
        return new V6__Split_environments();
    }

    @Bean
    RetentionJob retentionJob(Archive archive, ArchiveProperties props) {
        return new RetentionJob(archive, props.retention(), Clock.systemUTC());
    }
}
