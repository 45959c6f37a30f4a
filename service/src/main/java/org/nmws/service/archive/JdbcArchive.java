package org.nmws.service.archive;

import org.nmws.service.observation.Times;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The archive on plain SQL that SQLite and PostgreSQL both speak (the schema differs only
 * in id generation and BLOB/BYTEA; see db/migration/{vendor}). Parameters, environment and
 * summary are JSON text: read whole with their observation; aggregation pulls one summary
 * figure out of the text in Java, so no vendor's JSON functions are needed. The environment's
 * description is stored once per distinct one ({@link EnvironmentTable}), the row keeps only
 * what changed with the test ({@link EnvironmentParts}). Raw frames are packed
 * {@link FrameCodec} chunks, one row per 4096 frames.
 */
public class JdbcArchive implements Archive {
    private static final TypeReference<LinkedHashMap<String, String>> STRING_MAP = new TypeReference<>() { };
    private static final TypeReference<LinkedHashMap<String, Double>> DOUBLE_MAP = new TypeReference<>() { };
    private static final TypeReference<LinkedHashMap<String, long[]>> SAMPLES = new TypeReference<>() { };
    /** Observations per retention transaction: short enough that a writer never waits long. */
    private static final int PURGE_BATCH = 500;
    /** Observations per export page: keyset paging, so no cursor stays open across vendors. */
    private static final int SCAN_PAGE = 200;
    /** Observation rows with their environment description, one query (see EnvironmentTable.description). */
    private static final String OBSERVATIONS = "SELECT o.*, e.description AS env_description FROM observation o"
            + " LEFT JOIN environment e ON e.id = o.environment_id";

    private final JdbcTemplate jdbc;
    private final TransactionTemplate tx;
    private final ObjectMapper json;
    private final EnvironmentTable environments;
    /** PostgreSQL's windows of time (V11); null on SQLite, which deletes row by row. */
    private final TimePartitions partitions;

    public JdbcArchive(JdbcTemplate jdbc, TransactionTemplate tx, ObjectMapper json) {
        this(jdbc, tx, json, ArchiveProperties.DEFAULT_PARTITION_WIDTH);
    }

    /** @param partitionWidth the time each partition of a PostgreSQL archive holds */
    public JdbcArchive(JdbcTemplate jdbc, TransactionTemplate tx, ObjectMapper json, java.time.Duration partitionWidth) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.json = json;
        this.environments = new EnvironmentTable(jdbc, json);
        this.partitions = TimePartitions.of(jdbc, tx, partitionWidth);
    }

    /** PostgreSQL: the partitions around {@code now} exist and DEFAULT's rows are in theirs. */
    @Override
    public void maintain(Instant now) {
        if (partitions != null) {
            partitions.ensure(now, true);
        }
    }

    /** PostgreSQL: the partitions around {@code now} exist (at start-up: DEFAULT's rows wait for {@link #maintain}). */
    public void makeWindows(Instant now) {
        if (partitions != null) {
            partitions.ensure(now, false);
        }
    }

    @Override
    public Observation save(Observation o) {
        return save(o, UUID.randomUUID());
    }

    /**
     * Inserts under the result's key; when a row of that key exists already (a held result
     * written before a crash kept its spool file) nothing is written and that row's id is
     * returned.
     */
    @Override
    public Observation save(Observation o, UUID key) {
        EnvironmentParts env = EnvironmentParts.of(o.environment());
        Long id = tx.execute(status -> {
            List<Long> inserted = jdbc.queryForList("""
                    INSERT INTO observation (measurement_point, test, src_host, src_type, dst_host, dst_type,
                        src_address, dst_address, tool, tool_version, start_ns, end_ns, parameters, environment_id,
                        environment, summary, raw_frames, samples, result_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (result_key, start_ns) DO NOTHING RETURNING id""", Long.class,
                    o.measurementPoint(), o.test().key(),
                    o.subject().src() == null ? null : o.subject().src().host(),
                    o.subject().src() == null ? null : o.subject().src().type(),
                    o.subject().dst().host(), o.subject().dst().type(),
                    o.srcAddress(), o.dstAddress(), o.tool(), o.toolVersion(),
                    epochNanos(o.start()), epochNanos(o.end()),
                    write(o.parameters()), environments.idOf(env.description()), write(env.perTest()),
                    write(o.summary()), o.frames().size(),
                    o.samples().isEmpty() ? null : write(o.samples()), key.toString());
            if (inserted.isEmpty()) {
                // written before under this key: its frames went in the same transaction
                return jdbc.queryForObject("SELECT id FROM observation WHERE result_key = ? AND start_ns = ?", Long.class,
                        key.toString(), epochNanos(o.start()));
            }
            saveFrames(inserted.get(0), epochNanos(o.start()), o.frames());
            return inserted.get(0);
        });
        return o.withId(id);
    }

    @Override
    public Optional<Long> idOf(UUID key) {
        return jdbc.queryForList("SELECT id FROM observation WHERE result_key = ?", Long.class, key.toString())
                .stream().findFirst();
    }

    @Override
    public List<Observation> find(ObservationQuery q) {
        List<Object> filterArgs = new ArrayList<>();
        StringBuilder sql;
        List<Object> args = new ArrayList<>();
        if (q.dst() != null) {
            // The destination is a name or an address: the newest of each, read backwards along its
            // own index, then the newest of both. "(dst_host = ? OR dst_address = ?) ORDER BY
            // start_ns DESC LIMIT n" read and sorted every row of the range instead: a grid's newest
            // result of 100 paths took 440 ms on SQLite among 13 million (docs/benchmarks.md).
            String filter = filter(q, "", filterArgs);
            String newest = "SELECT id FROM (SELECT id FROM observation WHERE test = ? AND %s = ?" + filter
                    + " ORDER BY start_ns DESC, id DESC LIMIT ?) %s";
            sql = new StringBuilder(OBSERVATIONS + " WHERE o.id IN (" + String.format(newest, "dst_host", "by_host")
                    + " UNION " + String.format(newest, "dst_address", "by_address") + ")");
            for (int i = 0; i < 2; i++) {
                args.add(q.test().key());
                args.add(q.dst());
                args.addAll(filterArgs);
                args.add(q.limit());
            }
        } else {
            // by source alone: read straight, newest first, so the limit stops the read
            sql = new StringBuilder(OBSERVATIONS + " WHERE o.test = ?" + filter(q, "o.", filterArgs));
            args.add(q.test().key());
            args.addAll(filterArgs);
        }
        sql.append(" ORDER BY o.start_ns DESC, o.id DESC LIMIT ?");
        args.add(q.limit());
        List<Observation> found = new ArrayList<>(jdbc.query(sql.toString(), rowMapper, args.toArray()));
        Collections.reverse(found);
        if (!q.withFrames()) {
            return found;
        }
        List<Observation> withFrames = new ArrayList<>(found.size());
        for (Observation o : found) {
            withFrames.add(o.withFrames(frames(o)));
        }
        return withFrames;
    }

    @Override
    public <T> T atomically(java.util.function.Supplier<T> work) {
        return tx.execute(status -> work.get());
    }

    /** Every condition of the query but the destination's, its columns prefixed with p; their values into args. */
    private String filter(ObservationQuery q, String p, List<Object> args) {
        StringBuilder filter = new StringBuilder();
        if (q.src() != null) {
            filter.append(" AND (").append(p).append("src_host = ? OR ").append(p).append("src_address = ?)");
            args.add(q.src());
            args.add(q.src());
        }
        if (q.point() != null) {
            filter.append(" AND ").append(p).append("measurement_point = ?");
            args.add(q.point());
        }
        if (q.from() != null) {
            filter.append(" AND ").append(p).append("start_ns >= ?");
            args.add(epochNanos(q.from()));
        }
        if (q.to() != null) {
            filter.append(" AND ").append(p).append("start_ns <= ?");
            args.add(epochNanos(q.to()));
        }
        if (q.before() != null) {
            filter.append(" AND (").append(p).append("start_ns < ? OR (").append(p).append("start_ns = ? AND ").append(p)
                    .append("id < ?))");
            args.add(q.before().startNanos());
            args.add(q.before().startNanos());
            args.add(q.before().id());
        }
        if (q.parameters() != null) {
            // Parameters are stored as JSON text written in the test's stable order, so one
            // series is one exact text (see series()).
            filter.append(" AND ").append(p).append("parameters = ?");
            args.add(write(q.parameters()));
        }
        return filter.toString();
    }

    @Override
    public Optional<Observation> findById(long id, boolean withFrames) {
        List<Observation> found = jdbc.query(OBSERVATIONS + " WHERE o.id = ?", rowMapper, id);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Observation o = found.get(0);
        return Optional.of(withFrames ? o.withFrames(frames(o)) : o);
    }

    @Override
    public List<Series> series(SeriesQuery q) {
        StringBuilder sql = new StringBuilder("SELECT measurement_point, test, src_host, src_type, dst_host, dst_type,"
                + " parameters, COUNT(*) AS n, MIN(start_ns) AS first_ns, MAX(start_ns) AS last_ns"
                + " FROM observation WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        if (q.test() != null) {
            sql.append(" AND test = ?");
            args.add(q.test().key());
        }
        if (q.src() != null) {
            sql.append(" AND (src_host = ? OR src_address = ?)");
            args.add(q.src());
            args.add(q.src());
        }
        if (q.dst() != null) {
            sql.append(" AND (dst_host = ? OR dst_address = ?)");
            args.add(q.dst());
            args.add(q.dst());
        }
        sql.append(" GROUP BY measurement_point, test, src_host, src_type, dst_host, dst_type, parameters"
                + " ORDER BY first_ns, measurement_point, dst_host");
        List<Series> out = new ArrayList<>();
        jdbc.query(sql.toString(), rs -> {
            if (out.size() >= q.limit()) {
                return;
            }
            Map<String, String> params = read(rs.getString("parameters"), STRING_MAP);
            if (!params.entrySet().containsAll(q.parameters().entrySet())) {
                return;
            }
            String srcHost = rs.getString("src_host");
            Endpoint src = srcHost == null ? null : new Endpoint(srcHost, rs.getString("src_type"));
            out.add(new Series(rs.getString("measurement_point"), Characteristic.ProbeTest.ofKey(rs.getString("test")),
                    new PathSubject(src, new Endpoint(rs.getString("dst_host"), rs.getString("dst_type"))), params,
                    rs.getLong("n"), instant(rs.getLong("first_ns")), instant(rs.getLong("last_ns"))));
        }, args.toArray());
        return out;
    }

    @Override
    public List<TimeBucket> aggregate(AggregateQuery q) {
        StringBuilder where = new StringBuilder(" WHERE o.test = ? AND (o.dst_host = ? OR o.dst_address = ?)");
        List<Object> args = new ArrayList<>(List.of(q.test().key(), q.dst(), q.dst()));
        if (q.src() != null) {
            where.append(" AND (o.src_host = ? OR o.src_address = ?)");
            args.add(q.src());
            args.add(q.src());
        }
        where.append(" AND o.start_ns >= ? AND o.start_ns < ?");
        long fromNs = epochNanos(q.from());
        long toNs = epochNanos(q.to());
        args.add(fromNs);
        args.add(toNs);
        Buckets buckets = new Buckets(q.resolution());
        if (q.source() == AggregateQuery.Source.SUMMARY) {
            jdbc.query("SELECT o.start_ns, o.summary FROM observation o" + where, rs -> {
                double v = figure(rs.getString(2), q.figure());
                if (!Double.isNaN(v)) {
                    buckets.add(rs.getLong(1), v);
                }
            }, args.toArray());
        } else {
            long[] sends = new long[FrameCodec.CHUNK_FRAMES];
            long[] values = new long[FrameCodec.CHUNK_FRAMES];
            // the chunks' own start bounds too: PostgreSQL prunes frame_chunk's partitions by them only
            args.add(fromNs);
            args.add(toNs);
            jdbc.query("SELECT c.frame_count, c.data FROM observation o JOIN frame_chunk c ON c.observation_id = o.id"
                    + " AND c.start_ns = o.start_ns" + where + " AND c.start_ns >= ? AND c.start_ns < ?", rs -> {
                int n = FrameCodec.decodeSendsAndValues(rs.getBytes(2), rs.getInt(1), sends, values);
                for (int i = 0; i < n; i++) {
                    // A long test can run past the window's end: its later frames belong to later buckets.
                    if (sends[i] >= fromNs && sends[i] < toNs) {
                        buckets.add(sends[i], values[i]);
                    }
                }
            }, args.toArray());
        }
        return buckets.consolidate();
    }

    /** One number out of a stored summary without building the map; NaN when absent or not a number. */
    private double figure(String summaryJson, String name) {
        try (JsonParser p = json.getFactory().createParser(summaryJson)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalStateException("stored summary is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals(name)) {
                    return value.isNumeric() ? p.getDoubleValue() : Double.NaN;
                }
                p.skipChildren();
            }
            return Double.NaN;
        } catch (IOException e) {
            throw new IllegalStateException("stored summary JSON is corrupt: " + e.getMessage(), e);
        }
    }

    @Override
    public Purged purge(Instant rawBefore, Instant summaryBefore) {
        long rawObservations = 0;
        long rawFrames = 0;
        long observations = 0;
        if (partitions != null) {
            // whole windows first; the rows of windows a bound cuts through, and DEFAULT's, go below
            Purged dropped = partitions.drop(rawBefore, summaryBefore);
            rawObservations = dropped.rawObservations();
            rawFrames = dropped.rawFrames();
            observations = dropped.observations();
        }
        // Whole observations first, so the raw count holds only observations whose summaries stay.
        if (summaryBefore != null) {
            while (true) {
                List<long[]> batch = jdbc.query("SELECT id FROM observation WHERE start_ns < ? LIMIT ?",
                        (rs, n) -> new long[] {rs.getLong(1)}, epochNanos(summaryBefore), PURGE_BATCH);
                if (batch.isEmpty()) {
                    break;
                }
                String ids = idList(batch);
                tx.executeWithoutResult(status -> {
                    // Explicit, not ON DELETE CASCADE: SQLite enforces foreign keys only when asked to.
                    jdbc.update("DELETE FROM frame_chunk WHERE observation_id IN (" + ids + ")");
                    jdbc.update("DELETE FROM observation WHERE id IN (" + ids + ")");
                });
                observations += batch.size();
            }
        }
        if (rawBefore != null) {
            while (true) {
                List<long[]> batch = jdbc.query("SELECT id, raw_frames FROM observation WHERE raw_frames > 0 AND start_ns < ? LIMIT ?",
                        (rs, n) -> new long[] {rs.getLong(1), rs.getLong(2)}, epochNanos(rawBefore), PURGE_BATCH);
                if (batch.isEmpty()) {
                    break;
                }
                String ids = idList(batch);
                tx.executeWithoutResult(status -> {
                    jdbc.update("DELETE FROM frame_chunk WHERE observation_id IN (" + ids + ")");
                    jdbc.update("UPDATE observation SET raw_frames = 0, samples = NULL WHERE id IN (" + ids + ")");
                });
                rawObservations += batch.size();
                for (long[] row : batch) {
                    rawFrames += row[1];
                }
            }
        }
        return new Purged(rawObservations, rawFrames, observations);
    }

    /** Ids read from the database (longs, never client text) as a literal IN list. */
    private static String idList(List<long[]> rows) {
        StringBuilder b = new StringBuilder();
        for (long[] row : rows) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(row[0]);
        }
        return b.toString();
    }

    @Override
    public void forEach(Instant from, Instant to, boolean withFrames, Consumer<Observation> sink) {
        long after = Long.MIN_VALUE;
        while (true) {
            List<Observation> page = jdbc.query(
                    OBSERVATIONS + " WHERE o.id > ? AND start_ns >= ? AND start_ns < ? ORDER BY o.id LIMIT ?",
                    rowMapper, after, epochNanos(from), epochNanos(to), SCAN_PAGE);
            for (Observation o : page) {
                sink.accept(withFrames ? o.withFrames(frames(o)) : o);
            }
            if (page.size() < SCAN_PAGE) {
                return;
            }
            after = page.get(page.size() - 1).id();
        }
    }

    private void saveFrames(long observationId, long startNs, List<Observation.Frame> frames) {
        if (frames.isEmpty()) {
            return;
        }
        List<byte[]> chunks = FrameCodec.chunks(frames);
        List<Object[]> rows = new ArrayList<>(chunks.size());
        for (int i = 0; i < chunks.size(); i++) {
            int count = Math.min(FrameCodec.CHUNK_FRAMES, frames.size() - i * FrameCodec.CHUNK_FRAMES);
            rows.add(new Object[] {observationId, startNs, i, count, chunks.get(i)});
        }
        jdbc.batchUpdate("INSERT INTO frame_chunk (observation_id, start_ns, chunk_no, frame_count, data) VALUES (?, ?, ?, ?, ?)",
                rows);
    }

    private List<Observation.Frame> frames(Observation o) {
        // the chunks first, then one list of the right size: growing it frame by frame was a
        // seventh of reading a 100,000-frame test back (issue 25's profile)
        List<byte[]> chunks = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        jdbc.query("SELECT frame_count, data FROM frame_chunk WHERE observation_id = ? AND start_ns = ? ORDER BY chunk_no",
                rs -> {
                    counts.add(rs.getInt(1));
                    chunks.add(rs.getBytes(2));
                }, o.id(), epochNanos(o.start()));
        List<Observation.Frame> out = new ArrayList<>(counts.stream().mapToInt(Integer::intValue).sum());
        for (int i = 0; i < chunks.size(); i++) {
            FrameCodec.decode(chunks.get(i), counts.get(i), out);
        }
        return out;
    }

    private final RowMapper<Observation> rowMapper = this::mapRow;

    private Observation mapRow(ResultSet rs, int rowNum) throws SQLException {
        String srcHost = rs.getString("src_host");
        Endpoint src = srcHost == null ? null : new Endpoint(srcHost, rs.getString("src_type"));
        Endpoint dst = new Endpoint(rs.getString("dst_host"), rs.getString("dst_type"));
        return new Observation(rs.getLong("id"), rs.getString("measurement_point"),
                Characteristic.ProbeTest.ofKey(rs.getString("test")), new PathSubject(src, dst),
                rs.getString("src_address"), rs.getString("dst_address"), rs.getString("tool"),
                rs.getString("tool_version"), read(rs.getString("parameters"), STRING_MAP),
                environment(rs),
                instant(rs.getLong("start_ns")), instant(rs.getLong("end_ns")),
                read(rs.getString("summary"), DOUBLE_MAP), List.of(), samples(rs.getString("samples")));
    }

    private Environment environment(ResultSet rs) throws SQLException {
        long id = rs.getLong("environment_id");
        if (rs.wasNull()) {
            // Written whole, by a service older than schema V5 still writing to a shared archive.
            return read(rs.getString("environment"), Environment.class);
        }
        return new EnvironmentParts(environments.description(id, rs.getString("env_description")),
                read(rs.getString("environment"), EnvironmentParts.PerTest.class)).join();
    }

    private Map<String, long[]> samples(String json) {
        return json == null ? Map.of() : read(json, SAMPLES);
    }

    /** Epoch nanoseconds, saturated at what a long holds (an open window end such as Times.MAX). */
    static long epochNanos(Instant t) {
        if (t.isAfter(Times.MAX)) {
            return Long.MAX_VALUE;
        }
        if (t.isBefore(Times.MIN)) {
            return Long.MIN_VALUE;
        }
        return t.getEpochSecond() * 1_000_000_000L + t.getNano(); // exact within the range checked
    }

    static Instant instant(long epochNanos) {
        return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
    }

    private String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    private <T> T read(String text, TypeReference<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is corrupt: " + e.getOriginalMessage(), e);
        }
    }

    private <T> T read(String text, Class<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is corrupt: " + e.getOriginalMessage(), e);
        }
    }

}
