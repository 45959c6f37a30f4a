package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.nmws.service.NmwsProperties;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The archive's data source: SQLite under the data directory unless spring.datasource.url
 * names another database (PostgreSQL for a shared archive). Flyway migrates either from
 * db/migration/{vendor}.
 */
@Configuration(proxyBeanMethods = false)
class ArchiveConfig {

    @Bean
    DataSource dataSource(DataSourceProperties props, NmwsProperties nmws) {
        String url = props.getUrl();
        HikariDataSource ds = new HikariDataSource();
        if (url == null || url.isBlank()) {
            Path dir = nmws.dataDir().toAbsolutePath();
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create data directory " + dir, e);
            }
            url = "jdbc:sqlite:" + dir.resolve("nmws.db");
        }
        ds.setJdbcUrl(url);
        ds.setPoolName("nmws-archive");
        if (url.startsWith("jdbc:sqlite:")) {
            // WAL lets readers run beside the writer; FULL sync makes an acknowledged result durable.
            ds.addDataSourceProperty("journal_mode", "WAL");
            ds.addDataSourceProperty("synchronous", "FULL");
            ds.addDataSourceProperty("busy_timeout", "10000");
            ds.addDataSourceProperty("foreign_keys", "true");
            ds.setMaximumPoolSize(4);
        } else {
            ds.setUsername(props.getUsername());
            ds.setPassword(props.getPassword());
            ds.setMaximumPoolSize(8);
        }
        return ds;
    }

    @Bean
    Archive archive(JdbcTemplate jdbc, PlatformTransactionManager txManager, ObjectMapper json) {
        return new JdbcArchive(jdbc, new TransactionTemplate(txManager), json);
    }
}
