package org.nmws.service.archive;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The archive's connection pool, set up the same way for the service, the tests and the
 * benchmarks, so that what they measure is what runs.
 */
public final class ArchiveDataSources {
    private ArchiveDataSources() {
    }

    /** A pool on the JDBC URL: SQLite with WAL and synchronous commits, or any other database as given. */
    public static HikariDataSource open(String url, String username, String password) {
        HikariDataSource ds = new HikariDataSource();
        ds.setJdbcUrl(url);
        ds.setPoolName("nmws-archive");
        if (url.startsWith("jdbc:sqlite:")) {
            // WAL lets readers run beside the writer; FULL sync makes an acknowledged result durable.
            ds.addDataSourceProperty("journal_mode", "WAL");
            ds.addDataSourceProperty("synchronous", "FULL");
            ds.addDataSourceProperty("busy_timeout", "10000");
            ds.addDataSourceProperty("foreign_keys", "true");
            // Reads through a memory map and a 64 MB page cache: a one-day query of one path
            // touches ~1,440 scattered pages, and a pread plus copy per page doubled its time.
            ds.addDataSourceProperty("mmap_size", Long.toString(1L << 30));
            ds.addDataSourceProperty("cache_size", "-65536");
            ds.setMaximumPoolSize(4);
        } else {
            ds.setUsername(username);
            ds.setPassword(password);
            ds.setMaximumPoolSize(8);
            // A database that is down is noticed in 5 s (Hikari waits 30 s by default): the
            // result is then held on disk (ResultKeeper) and the client answered.
            ds.setConnectionTimeout(5_000);
        }
        return ds;
    }
}
