package org.nmws.service.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The durable outbox in the archive's database: a row per result and archive it is meant for,
 * added in the transaction that keeps the result (so a result kept is a result that will be
 * sent), removed only when the archive acknowledged it or its ttl ran out. The delivery side
 * (the archivers) reads due rows in batches, so nothing of the backlog is held in memory; the
 * backlog of each archive is bounded: past {@code maxPerArchive} rows, tests whose results
 * are meant for it are refused before they start ({@link #checkRoom}), never dropped after.
 * The same SQL runs on SQLite and PostgreSQL.
 */
public final class Outbox {
    /**
     * A result waiting for one archive.
     *
     * @param attempts deliveries tried so far
     */
    public record Row(long id, UUID resultKey, long observationId, long targetId, String archiver, long createdMs,
                      long expiresMs, int attempts) {
    }

    /** An archive known to the outbox, with its id. */
    public record Target(long id, ArchiveTarget target) {
    }

    /** The backlog of an archive is at its bound. */
    public static final class Full extends Exception {
        Full(String message) {
            super(message);
        }
    }

    private final JdbcTemplate jdbc;
    private final ObjectMapper json;
    private final String point;
    private final Duration defaultTtl;
    private final long maxPerArchive;
    private final Clock clock;
    private final Map<String, Long> idByDigest = new ConcurrentHashMap<>();
    private final Map<Long, ArchiveTarget> byId = new ConcurrentHashMap<>();
    /** Rows per target id as last counted (refreshed by {@link #refreshBacklog} and bumped by adds). */
    private volatile Map<Long, Long> backlog = Map.of();
    private final List<Runnable> onAdded = new CopyOnWriteArrayList<>();

    public Outbox(JdbcTemplate jdbc, ObjectMapper json, String point, Duration defaultTtl, long maxPerArchive, Clock clock) {
        this.jdbc = jdbc;
        this.json = json;
        this.point = point;
        this.defaultTtl = defaultTtl;
        this.maxPerArchive = maxPerArchive;
        this.clock = clock;
    }

    public String point() {
        return point;
    }

    public long maxPerArchive() {
        return maxPerArchive;
    }

    /** Told after rows were added and committed (the delivery wakes up). Must be fast. */
    public void onAdded(Runnable r) {
        onAdded.add(r);
    }

    /**
     * Refuses a test whose results would go to an archive whose backlog is at its bound: the
     * result would be kept here but could not be queued for it, and a result once measured is
     * to reach every archive it was meant for.
     */
    public void checkRoom(Collection<ArchiveTarget> targets) throws Full {
        Map<Long, Long> counts = backlog;
        for (ArchiveTarget t : targets) {
            Long id = idByDigest.get(t.digest());
            long n = id == null ? 0 : counts.getOrDefault(id, 0L);
            if (n >= maxPerArchive) {
                throw new Full("archive " + t.name() + " (" + t.archiver() + " at " + t.destination() + ") has " + n
                        + " results waiting, its bound (nmws.archivers.max-backlog); no test for it starts until they are delivered"
                        + " or expire");
            }
        }
    }

    /**
     * Queues a kept result for each archive, in the caller's transaction (the one that keeps
     * the result). A result queued before for an archive (the same key) is not queued again.
     */
    public void add(long observationId, UUID key, List<ArchiveTarget> targets) {
        long now = clock.millis();
        for (ArchiveTarget t : targets) {
            long targetId = targetId(t);
            Duration ttl = t.ttl() == null ? defaultTtl : t.ttl();
            jdbc.update("INSERT INTO outbox (result_key, observation_id, target_id, archiver, point, created_ms, expires_ms, next_ms,"
                            + " attempts) VALUES (?,?,?,?,?,?,?,?,0) ON CONFLICT (result_key, target_id) DO NOTHING",
                    key.toString(), observationId, targetId, t.archiver(), point, now, now + ttl.toMillis(), now);
        }
    }

    /** After the transaction that added rows committed: wakes the delivery. */
    public void added(List<ArchiveTarget> targets) {
        Map<Long, Long> counts = new HashMap<>(backlog);
        for (ArchiveTarget t : targets) {
            Long id = idByDigest.get(t.digest());
            if (id != null) {
                counts.merge(id, 1L, Long::sum);
            }
        }
        backlog = Map.copyOf(counts);
        for (Runnable r : onAdded) {
            r.run();
        }
    }

    /**
     * Makes sure each archive has its row, in a transaction of its own, before the result's
     * transaction adds rows that point at it: an id is cached only once it is committed.
     */
    public void prepare(List<ArchiveTarget> targets) {
        for (ArchiveTarget t : targets) {
            targetId(t);
        }
    }

    /** The archive's id, adding it when it is new (digest-unique, so two points find one row). */
    long targetId(ArchiveTarget t) {
        String digest = t.digest();
        Long id = idByDigest.get(digest);
        if (id != null) {
            return id;
        }
        jdbc.update("INSERT INTO archive_target (digest, name, archiver, spec) VALUES (?,?,?,?) ON CONFLICT (digest) DO NOTHING",
                digest, t.name(), t.archiver(), t.canonical());
        long found = jdbc.queryForObject("SELECT id FROM archive_target WHERE digest = ?", Long.class, digest);
        idByDigest.put(digest, found);
        byId.put(found, t);
        return found;
    }

    /** The archive of a target id, read once. */
    public Optional<ArchiveTarget> target(long id) {
        ArchiveTarget t = byId.get(id);
        if (t != null) {
            return Optional.of(t);
        }
        List<String> spec = jdbc.queryForList("SELECT spec FROM archive_target WHERE id = ?", String.class, id);
        if (spec.isEmpty()) {
            return Optional.empty();
        }
        try {
            JsonNode node = json.readTree(spec.get(0));
            t = ArchiveTarget.parse(node, null);
        } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalStateException("archive_target " + id + " holds a spec nmws cannot read: " + e.getMessage(), e);
        }
        byId.put(id, t);
        idByDigest.put(t.digest(), id);
        return Optional.of(t);
    }

    /** Every archive this point has rows for, or had since start, with its id. */
    public List<Target> targets() {
        List<Long> ids = jdbc.queryForList("SELECT DISTINCT target_id FROM outbox WHERE point = ?", Long.class, point);
        java.util.TreeSet<Long> all = new java.util.TreeSet<>(ids);
        all.addAll(byId.keySet());
        return all.stream().map(id -> target(id).map(t -> new Target(id, t)).orElse(null)).filter(java.util.Objects::nonNull)
                .toList();
    }

    /** This point's rows of an archiver due by now, earliest first, at most limit. */
    public List<Row> due(String archiver, int limit) {
        return jdbc.query("SELECT id, result_key, observation_id, target_id, archiver, created_ms, expires_ms, attempts FROM outbox"
                        + " WHERE point = ? AND archiver = ? AND next_ms <= ? ORDER BY next_ms, id LIMIT ?",
                (rs, i) -> new Row(rs.getLong(1), UUID.fromString(rs.getString(2)), rs.getLong(3), rs.getLong(4), rs.getString(5),
                        rs.getLong(6), rs.getLong(7), rs.getInt(8)),
                point, archiver, clock.millis(), limit);
    }

    /** When this point's next row of an archiver is due, if it has any. */
    public Optional<Long> nextDue(String archiver) {
        List<Long> t = jdbc.queryForList("SELECT MIN(next_ms) FROM outbox WHERE point = ? AND archiver = ?", Long.class, point,
                archiver);
        return t.isEmpty() || t.get(0) == null ? Optional.empty() : Optional.of(t.get(0));
    }

    /** Rows the archive acknowledged (or that are given up): gone. */
    public void remove(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return;
        }
        // in pieces, so a statement never carries thousands of parameters
        List<Long> list = List.copyOf(ids);
        for (int i = 0; i < list.size(); i += 200) {
            List<Long> part = list.subList(i, Math.min(list.size(), i + 200));
            jdbc.update("DELETE FROM outbox WHERE id IN (" + part.stream().map(x -> "?").collect(Collectors.joining(",")) + ")",
                    part.toArray());
        }
    }

    /** A failed attempt: tried again at nextMs. */
    public void retry(long id, int attempts, long nextMs, String error) {
        jdbc.update("UPDATE outbox SET attempts = ?, next_ms = ?, last_error = ? WHERE id = ?", attempts, nextMs,
                error.length() <= 1000 ? error : error.substring(0, 1000) + "...", id);
    }

    /** Counts this point's rows per archive again (the figures behind the backlog gauges and the bound). */
    public Map<Long, Long> refreshBacklog() {
        Map<Long, Long> counts = new HashMap<>();
        jdbc.query("SELECT target_id, COUNT(*) FROM outbox WHERE point = ? GROUP BY target_id",
                rs -> {
                    counts.put(rs.getLong(1), rs.getLong(2));
                }, point);
        backlog = Map.copyOf(counts);
        return backlog;
    }

    /** Rows per target id as last counted. */
    public Map<Long, Long> backlog() {
        return backlog;
    }

    /** Results per archive that are not delivered: this point's rows, with the oldest row's age and last error. */
    public Map<Long, ObjectNode> state() {
        Map<Long, ObjectNode> out = new HashMap<>();
        jdbc.query("SELECT target_id, COUNT(*), MIN(created_ms), MAX(attempts) FROM outbox WHERE point = ? GROUP BY target_id",
                rs -> {
                    ObjectNode o = json.createObjectNode();
                    o.put("backlog", rs.getLong(2));
                    o.put("oldestMs", rs.getLong(3));
                    o.put("maxAttempts", rs.getInt(4));
                    out.put(rs.getLong(1), o);
                }, point);
        return out;
    }
}
