package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.MeterBinder;
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
    Archive archive(JdbcTemplate jdbc, PlatformTransactionManager txManager, ObjectMapper json, ArchiveProperties props) {
        JdbcArchive archive = new JdbcArchive(jdbc, new TransactionTemplate(txManager), json, props.partitionWidth());
        try {
            archive.makeWindows(Clock.systemUTC().instant()); // today's partitions before the first result
        } catch (RuntimeException e) {
            // results wait in DEFAULT until the retention job's pass makes their windows
            org.slf4j.LoggerFactory.getLogger(ArchiveConfig.class).warn("archive partitions not made at start-up: {}",
                    e.toString());
        }
        if (props.opensearchUrl().isBlank()) {
            return archive;
        }
        return new ClusterBackedArchive(archive, new OpenSearchResults(props.opensearchUrl(), props.opensearchTimeout()));
    }

    /**
     * Keeps results exactly once, holding them in {data-dir}/spool (or nmws.archive.spool.dir) while the archive cannot
     * take them; drains what an earlier run held as soon as the context is up.
     */
    @Bean(initMethod = "start", destroyMethod = "close")
    ResultKeeper resultKeeper(Archive archive, ArchiveProperties props, NmwsProperties nmws) {
        ArchiveProperties.Spool spool = props.spool();
        Path dir = spool.dir() != null ? spool.dir().toAbsolutePath() : nmws.dataDir().toAbsolutePath().resolve("spool");
        return ResultKeeper.spooling(archive, dir, spool.maxEntries(),
                spool.maxBytes().toBytes(), spool.drainInterval());
    }

    /** Held results as metrics: what waits now, and what was held, written and refused since start. */
    @Bean
    MeterBinder resultKeeperMetrics(ResultKeeper keeper) {
        return registry -> {
            Gauge.builder("nmws.archive.spool.results", keeper, ResultKeeper::held)
                    .description("results held on this point's disk, waiting for the archive").register(registry);
            Gauge.builder("nmws.archive.spool.bytes", keeper, ResultKeeper::heldBytes)
                    .description("bytes of results held, waiting for the archive").register(registry);
            FunctionCounter.builder("nmws.archive.spool.held", keeper, ResultKeeper::heldTotal)
                    .description("results held since start because the archive could not keep them").register(registry);
            FunctionCounter.builder("nmws.archive.spool.written", keeper, ResultKeeper::written)
                    .description("held results written to the archive since start").register(registry);
            FunctionCounter.builder("nmws.archive.spool.refused", keeper, ResultKeeper::refused)
                    .description("results and tests refused since start: the archive down and the spool full").register(registry);
            FunctionCounter.builder("nmws.archive.spool.set.aside", keeper, ResultKeeper::setAside)
                    .description("held results set aside under spool/failed (unreadable or refused for good)").register(registry);
        };
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
