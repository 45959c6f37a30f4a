package org.nmws.service.archive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;

import java.util.Optional;
import org.nmws.service.measure.Characteristic;
import org.nmws.service.measure.Endpoint;
import org.nmws.service.measure.Environment;
import org.nmws.service.measure.Observation;
import org.nmws.service.measure.PathSubject;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The archive on plain SQL that SQLite and PostgreSQL both speak (the schema differs only
 * in how ids are generated; see db/migration/{vendor}). Parameters, environment and summary
 * are JSON text: they are read whole with their observation, never queried inside.
 */
public class JdbcArchive implements Archive {
    private static final TypeReference<LinkedHashMap<String, String>> STRING_MAP = new TypeReference<>() { };
    private static final TypeReference<LinkedHashMap<String, Double>> DOUBLE_MAP = new TypeReference<>() { };
    private static final int FRAME_BATCH = 1000;

    private final JdbcTemplate jdbc;
    private final TransactionTemplate tx;
    private final ObjectMapper json;

    public JdbcArchive(JdbcTemplate jdbc, TransactionTemplate tx, ObjectMapper json) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.json = json;
    }

    @Override
    public Observation save(Observation o) {
        Long id = tx.execute(status -> {
            Long newId = jdbc.queryForObject("""
                    INSERT INTO observation (measurement_point, test, src_host, src_type, dst_host, dst_type,
                        src_address, dst_address, tool, tool_version, start_ns, end_ns, parameters, environment, summary)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""", Long.class,
                    o.measurementPoint(), o.test().name(),
                    o.subject().src() == null ? null : o.subject().src().host(),
                    o.subject().src() == null ? null : o.subject().src().type(),
                    o.subject().dst().host(), o.subject().dst().type(),
                    o.srcAddress(), o.dstAddress(), o.tool(), o.toolVersion(),
                    epochNanos(o.start()), epochNanos(o.end()),
                    write(o.parameters()), write(o.environment()), write(o.summary()));
            List<Observation.Frame> frames = o.frames();
            for (int from = 0; from < frames.size(); from += FRAME_BATCH) {
                List<Object[]> rows = new ArrayList<>();
                for (Observation.Frame f : frames.subList(from, Math.min(frames.size(), from + FRAME_BATCH))) {
                    rows.add(new Object[] {newId, f.seq(), f.sendEpochNanos(), f.valueNanos(), f.bytes(), f.ttl()});
                }
                jdbc.batchUpdate("INSERT INTO frame (observation_id, seq, send_ns, value_ns, bytes, ttl) VALUES (?, ?, ?, ?, ?, ?)", rows);
            }
            return newId;
        });
        return o.withId(id);
    }

    @Override
    public List<Observation> find(ObservationQuery q) {
        StringBuilder sql = new StringBuilder("SELECT * FROM observation WHERE test = ? AND (dst_host = ? OR dst_address = ?)");
        List<Object> args = new ArrayList<>(List.of(q.test().name(), q.dst(), q.dst()));
        if (q.src() != null) {
            sql.append(" AND (src_host = ? OR src_address = ?)");
            args.add(q.src());
            args.add(q.src());
        }
        if (q.from() != null) {
            sql.append(" AND start_ns >= ?");
            args.add(epochNanos(q.from()));
        }
        if (q.to() != null) {
            sql.append(" AND start_ns <= ?");
            args.add(epochNanos(q.to()));
        }
        sql.append(" ORDER BY start_ns DESC, id DESC LIMIT ?");
        args.add(q.limit());
        List<Observation> found = new ArrayList<>(jdbc.query(sql.toString(), rowMapper, args.toArray()));
        Collections.reverse(found);
        if (!q.withFrames()) {
            return found;
        }
        List<Observation> withFrames = new ArrayList<>(found.size());
        for (Observation o : found) {
            withFrames.add(o.withFrames(frames(o.id())));
        }
        return withFrames;
    }

    @Override
    public Optional<Observation> findById(long id, boolean withFrames) {
        List<Observation> found = jdbc.query("SELECT * FROM observation WHERE id = ?", rowMapper, id);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Observation o = found.get(0);
        return Optional.of(withFrames ? o.withFrames(frames(id)) : o);
    }

    private List<Observation.Frame> frames(long observationId) {
        return jdbc.query("SELECT seq, send_ns, value_ns, bytes, ttl FROM frame WHERE observation_id = ? ORDER BY seq",
                (rs, n) -> new Observation.Frame(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getInt(4), rs.getInt(5)),
                observationId);
    }

    private final RowMapper<Observation> rowMapper = this::mapRow;

    private Observation mapRow(ResultSet rs, int rowNum) throws SQLException {
        String srcHost = rs.getString("src_host");
        Endpoint src = srcHost == null ? null : new Endpoint(srcHost, rs.getString("src_type"));
        Endpoint dst = new Endpoint(rs.getString("dst_host"), rs.getString("dst_type"));
        return new Observation(rs.getLong("id"), rs.getString("measurement_point"),
                Characteristic.ProbeTest.valueOf(rs.getString("test")), new PathSubject(src, dst),
                rs.getString("src_address"), rs.getString("dst_address"), rs.getString("tool"),
                rs.getString("tool_version"), read(rs.getString("parameters"), STRING_MAP),
                read(rs.getString("environment"), Environment.class),
                instant(rs.getLong("start_ns")), instant(rs.getLong("end_ns")),
                read(rs.getString("summary"), DOUBLE_MAP), List.of());
    }

    static long epochNanos(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
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
