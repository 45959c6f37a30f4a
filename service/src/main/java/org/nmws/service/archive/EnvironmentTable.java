package org.nmws.service.archive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Table environment: each distinct environment description stored once, found by the SHA-256
 * of its JSON. Rows are never changed or deleted, so ids and descriptions are cached once
 * their transaction has committed (an id seen inside a transaction that rolls back may be
 * given out again). Two services sharing one PostgreSQL may insert the same description at
 * once; ON CONFLICT makes the second wait and then find the first's row.
 */
final class EnvironmentTable {
    /** A service sees few distinct environments (one per host setup and path); this bounds a long-lived one. */
    private static final int CACHED = 4096;

    private final JdbcTemplate jdbc;
    private final ObjectMapper json;
    private final Map<String, Long> ids = lru();
    private final Map<Long, Environment> descriptions = lru();

    EnvironmentTable(JdbcTemplate jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** The id of this description's row, inserting it if it is new; call inside the writing transaction. */
    long idOf(Environment description) {
        String text = write(description);
        String digest = sha256(text);
        Long cached;
        synchronized (ids) {
            cached = ids.get(digest);
        }
        if (cached != null) {
            return cached;
        }
        // Write first: a SQLite transaction that reads and then writes fails at once (SQLITE_BUSY,
        // no busy wait) when another connection wrote in between; one that starts with a write waits.
        jdbc.update("INSERT INTO environment (digest, description) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING",
                digest, text);
        long id = jdbc.queryForObject("SELECT id FROM environment WHERE digest = ?", Long.class, digest);
        afterCommit(() -> {
            synchronized (ids) {
                ids.put(digest, id);
            }
        });
        return id;
    }

    /**
     * The description of row id, whose JSON the caller read with its observation (a join, so
     * no second query, and no second pooled connection, runs while the row query holds one).
     */
    Environment description(long id, String text) {
        Environment cached;
        synchronized (descriptions) {
            cached = descriptions.get(id);
        }
        if (cached != null) {
            return cached;
        }
        Environment e;
        try {
            e = json.readValue(text, Environment.class);
        } catch (JsonProcessingException | IllegalArgumentException ex) {
            throw new IllegalStateException("stored environment " + id + " is corrupt or missing", ex);
        }
        afterCommit(() -> {
            synchronized (descriptions) {
                descriptions.put(id, e);
            }
        });
        return e;
    }

    private String write(Environment description) {
        try {
            return json.writeValueAsString(description);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode an environment as JSON", e);
        }
    }

    /** Runs now outside a Spring transaction (what was read is committed), else once the transaction commits. */
    private static void afterCommit(Runnable r) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    r.run();
                }
            });
        } else {
            r.run();
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static <K, V> Map<K, V> lru() {
        return new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > CACHED;
            }
        };
    }
}
