package org.nmws.service.archive;

import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The time partitions of a PostgreSQL archive (schema V11): observation and frame_chunk are
 * partitioned by range of start_ns into windows of one width, aligned on the epoch (UTC) and
 * named {table}_pYYYYMMDD_HHMM by their first instant.
 *
 * <p>{@link #ensure} creates the windows from one before the clock to {@link #AHEAD} after it,
 * and adopts the rows the DEFAULT partition took for a window that has none yet (every row
 * V11 moved, a result far from the clock); {@link #drop} removes whole windows retention has
 * passed. Written here: PostgreSQL creates no partitions by itself, and pg_partman is an
 * extension a shared archive's owner may not allow. Every change takes one advisory lock, so
 * points sharing an archive never race on a window.
 */
final class TimePartitions {
    private static final Logger log = LoggerFactory.getLogger(TimePartitions.class);
    /** How far ahead of the clock windows exist, so a result is never written into DEFAULT by day. */
    static final Duration AHEAD = Duration.ofDays(2);
    /** The advisory lock id of partition changes ("nmwspart"). */
    private static final long LOCK = 0x6e6d777370617274L;
    /**
     * How long a change waits for a table lock: a DROP or ATTACH queued behind a long read
     * would hold every writer behind it. Failed, the change is tried again at the next pass.
     */
    private static final long LOCK_TIMEOUT_MS = 5_000;
    private static final Pattern RANGE = Pattern.compile("FROM \\('(-?\\d+)'\\) TO \\('(-?\\d+)'\\)");
    private static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("yyyyMMdd_HHmm", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final JdbcTemplate jdbc;
    private final TransactionTemplate tx;
    private final long widthNs;

    private TimePartitions(JdbcTemplate jdbc, TransactionTemplate tx, Duration width) {
        if (width.compareTo(Duration.ofHours(1)) < 0 || width.compareTo(Duration.ofDays(366)) > 0) {
            throw new IllegalArgumentException("nmws.archive.partition-width must be from PT1H to P366D, was " + width);
        }
        this.jdbc = jdbc;
        this.tx = tx;
        this.widthNs = width.toNanos();
    }

    /** The partitions of this archive's database; null where it has none (SQLite). */
    static TimePartitions of(JdbcTemplate jdbc, TransactionTemplate tx, Duration width) {
        String product = jdbc.execute((ConnectionCallback<String>) c -> {
            DatabaseMetaData meta = c.getMetaData();
            return meta.getDatabaseProductName();
        });
        if (!"PostgreSQL".equals(product)) {
            return null;
        }
        String kind = jdbc.queryForObject("SELECT relkind::text FROM pg_class WHERE oid = 'observation'::regclass", String.class);
        return "p".equals(kind) ? new TimePartitions(jdbc, tx, width) : null;
    }

    /** One partition: its name and the range [lo, hi) of start_ns it holds. */
    record Window(String name, long lo, long hi) {
    }

    /** The ranged partitions of a table, oldest first (DEFAULT left out). */
    List<Window> windows(String table) {
        List<Window> out = new ArrayList<>();
        jdbc.query("""
                SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = ?::regclass""", rs -> {
            Matcher m = RANGE.matcher(rs.getString(2));
            if (m.find()) {
                out.add(new Window(rs.getString(1), Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
            }
        }, table);
        out.sort((a, b) -> Long.compare(a.lo, b.lo));
        return out;
    }

    /**
     * Creates the windows around the clock and, when {@code adopt}, those DEFAULT holds rows
     * of, up to {@link #AHEAD}; returns how many partitions it created. Adoption is left to the
     * retention job's background pass: after V11 moved a large archive into DEFAULT, each
     * window attached scans what DEFAULT still holds, which start-up should not wait for.
     */
    int ensure(Instant now, boolean adopt) {
        long nowNs = JdbcArchive.epochNanos(now);
        long last = Math.floorDiv(nowNs + AHEAD.toNanos(), widthNs);
        int created = 0;
        for (String table : List.of("observation", "frame_chunk")) {
            TreeSet<Long> wanted = new TreeSet<>();
            for (long w = Math.floorDiv(nowNs, widthNs) - 1; w <= last; w++) {
                wanted.add(w);
            }
            // windows of rows DEFAULT took; far-future rows (a wrong clock) stay there
            if (adopt) {
                jdbc.query("SELECT DISTINCT floor(start_ns::numeric / ?)::bigint FROM " + table + "_default WHERE start_ns < ?",
                        rs -> {
                            wanted.add(rs.getLong(1));
                        }, widthNs, (last + 1) * widthNs);
            }
            List<Window> have = windows(table);
            for (long w : wanted) {
                if (!overlaps(have, w * widthNs, (w + 1) * widthNs) && create(table, w * widthNs, (w + 1) * widthNs)) {
                    created++;
                }
            }
        }
        return created;
    }

    private static boolean overlaps(List<Window> have, long lo, long hi) {
        for (Window h : have) {
            if (h.lo < hi && lo < h.hi) {
                return true;
            }
        }
        return false;
    }

    /**
     * Creates one window: a plain table filled with the rows DEFAULT holds for it, then
     * attached. ATTACH (not CREATE ... PARTITION OF) because PostgreSQL refuses a new partition
     * while DEFAULT holds rows of its range, and because it locks the parent less; the CHECK
     * spares ATTACH a scan of the rows just moved. DEFAULT is locked against writers first, so
     * a row written there meanwhile can neither be lost between the move's two halves nor make
     * ATTACH fail; the rows move in one statement.
     */
    private boolean create(String table, long lo, long hi) {
        String name = table + "_p" + NAME.format(JdbcArchive.instant(lo));
        Boolean done = tx.execute(status -> {
            jdbc.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT_MS + "ms'");
            jdbc.queryForList("SELECT pg_advisory_xact_lock(?)", LOCK);
            if (overlaps(windows(table), lo, hi)) {
                return false; // another point sharing the archive made it meanwhile
            }
            jdbc.execute("LOCK TABLE " + table + "_default IN SHARE ROW EXCLUSIVE MODE");
            jdbc.execute("CREATE TABLE " + name + " (LIKE " + table + " INCLUDING DEFAULTS)");
            if (table.equals("frame_chunk")) {
                jdbc.execute("ALTER TABLE " + name + " ALTER COLUMN data SET STORAGE EXTERNAL");
            }
            int moved = jdbc.update("WITH m AS (DELETE FROM " + table + "_default WHERE start_ns >= ? AND start_ns < ? RETURNING *)"
                    + " INSERT INTO " + name + " SELECT * FROM m", lo, hi);
            if (moved > 0) {
                log.info("moved {} rows of {} out of its DEFAULT partition into {}", moved, table, name);
            }
            jdbc.execute("ALTER TABLE " + name + " ADD CONSTRAINT " + name + "_range CHECK (start_ns >= " + lo
                    + " AND start_ns < " + hi + ")");
            jdbc.execute("ALTER TABLE " + table + " ATTACH PARTITION " + name + " FOR VALUES FROM (" + lo + ") TO (" + hi + ")");
            return true;
        });
        return Boolean.TRUE.equals(done);
    }

    /**
     * Retention by whole windows: the observation and frame windows that end at or before
     * {@code summaryBefore} are dropped, then the frame windows that end at or before
     * {@code rawBefore}, their observations kept with raw_frames 0. Either bound may be null.
     * Rows of windows the bound cuts through are left to the row-by-row pass.
     */
    Purged drop(Instant rawBefore, Instant summaryBefore) {
        long observations = 0;
        long rawObservations = 0;
        long rawFrames = 0;
        if (summaryBefore != null) {
            long cut = JdbcArchive.epochNanos(summaryBefore);
            for (Window w : windows("observation")) {
                if (w.hi <= cut) {
                    Long n = tx.execute(status -> {
                        if (!lockedAndThere(w.name)) {
                            return 0L; // another point sharing the archive dropped it meanwhile
                        }
                        long count = jdbc.queryForObject("SELECT COUNT(*) FROM " + w.name, Long.class);
                        jdbc.execute("DROP TABLE " + w.name);
                        // frames DEFAULT took for the window's observations would be orphans
                        jdbc.update("DELETE FROM frame_chunk_default WHERE start_ns >= ? AND start_ns < ?", w.lo, w.hi);
                        return count;
                    });
                    observations += n;
                }
            }
            for (Window w : windows("frame_chunk")) {
                if (w.hi <= cut) {
                    tx.executeWithoutResult(status -> {
                        if (lockedAndThere(w.name)) {
                            jdbc.execute("DROP TABLE " + w.name);
                        }
                    });
                }
            }
        }
        if (rawBefore != null) {
            long cut = JdbcArchive.epochNanos(rawBefore);
            for (Window w : windows("frame_chunk")) {
                if (w.hi <= cut) {
                    long[] n = tx.execute(status -> {
                        if (!lockedAndThere(w.name)) {
                            return new long[2];
                        }
                        // the window's observations say they have no raw data left (those in DEFAULT too)
                        long[] counts = jdbc.queryForObject("SELECT COUNT(*), COALESCE(SUM(raw_frames), 0) FROM observation"
                                + " WHERE raw_frames > 0 AND start_ns >= ? AND start_ns < ?",
                                (rs, i) -> new long[] {rs.getLong(1), rs.getLong(2)}, w.lo, w.hi);
                        jdbc.update("UPDATE observation SET raw_frames = 0, samples = NULL WHERE raw_frames > 0"
                                + " AND start_ns >= ? AND start_ns < ?", w.lo, w.hi);
                        jdbc.update("DELETE FROM frame_chunk_default WHERE start_ns >= ? AND start_ns < ?", w.lo, w.hi);
                        jdbc.execute("DROP TABLE " + w.name);
                        return counts;
                    });
                    rawObservations += n[0];
                    rawFrames += n[1];
                }
            }
        }
        return new Purged(rawObservations, rawFrames, observations);
    }

    /** In a change's transaction: its lock and lock timeout taken; whether the table is still there. */
    private boolean lockedAndThere(String table) {
        jdbc.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT_MS + "ms'");
        jdbc.queryForList("SELECT pg_advisory_xact_lock(?)", LOCK);
        return jdbc.queryForObject("SELECT to_regclass(?) IS NOT NULL", Boolean.class, table);
    }
}
