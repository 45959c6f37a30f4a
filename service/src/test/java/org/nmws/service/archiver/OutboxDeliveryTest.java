package org.nmws.service.archiver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.archive.ArchiveContractTest;
import org.nmws.service.archive.ArchiveTarget;
import org.nmws.service.archive.Outbox;
import org.nmws.service.archive.ResultKeeper;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.observation.Observation;

/**
 * Issue 23, item 3: the outbox on real SQLite and PostgreSQL archives, delivered by the http
 * archiver to a real HTTP server on loopback that answers as it is told (200, 503, 400). A
 * result and its outbox rows are kept in one transaction; a row goes only when the archive
 * acknowledged it; failures are tried again with back-off until the ttl; the backlog is
 * bounded by refusing tests before they start.
 */
class OutboxDeliveryTest {
    private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private HttpServer server;
    /** Statuses the server answers with, one per request, then 200. */
    private final ConcurrentLinkedQueue<Integer> answers = new ConcurrentLinkedQueue<>();
    private final List<String> received = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger requests = new AtomicInteger();

    @BeforeEach
    void startServer() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/logstash", ex -> {
            requests.incrementAndGet();
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Integer status = answers.poll();
            int s = status == null ? 200 : status;
            if (s == 200 && "a".equals(ex.getRequestHeaders().getFirst("x-ps-observer"))) {
                received.add(body);
            }
            ex.sendResponseHeaders(s, -1);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    @Test
    void onSqliteEveryResultReachesTheArchiveOnceAfterFailures() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            deliveredOnce(s);
        }
    }

    @Test
    void onPostgresEveryResultReachesTheArchiveOnceAfterFailures() throws Exception {
        try (TestArchives.Store s = TestArchives.postgresStore(null)) {
            deliveredOnce(s);
        }
    }

    @Test
    void onSqliteTheResultAndItsOutboxRowsAreOneTransaction() throws Exception {
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            oneTransaction(s);
        }
    }

    @Test
    void onPostgresTheResultAndItsOutboxRowsAreOneTransaction() throws Exception {
        try (TestArchives.Store s = TestArchives.postgresStore(null)) {
            oneTransaction(s);
        }
    }

    private void deliveredOnce(TestArchives.Store s) throws Exception {
        Outbox outbox = new Outbox(s.jdbc(), JSON, "mp-a", Duration.ofHours(1), 1000, Clock.systemUTC());
        ResultKeeper keeper = ResultKeeper.direct(s.archive());
        keeper.setOutbox(outbox);
        ArchiveTarget http = target("PT1H");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Delivery delivery = new Delivery(outbox, s.archive(), new KeyBodies(), props(), registry, JSON, Clock.systemUTC());

        List<UUID> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            UUID key = UUID.randomUUID();
            keys.add(key);
            keeper.keep(observation(T0.plusSeconds(i)), key, List.of(http));
        }
        keeper.keep(observation(T0), keys.get(0), List.of(http)); // kept again under its key: not queued twice
        assertEquals(3, count(s, "SELECT COUNT(*) FROM outbox"));
        assertEquals(3, count(s, "SELECT COUNT(*) FROM observation"));

        answers.add(503); // the first batch's first request fails: that result alone is tried again
        assertEquals(3, delivery.pass("http"));
        assertEquals(1, count(s, "SELECT COUNT(*) FROM outbox"));
        assertEquals(1, count(s, "SELECT attempts FROM outbox"));
        assertEquals(0, delivery.pass("http"), "backing off: not due yet");
        answers.add(503);
        passWhenDue(delivery, outbox);
        assertEquals(2, count(s, "SELECT attempts FROM outbox"));
        passWhenDue(delivery, outbox);
        assertEquals(0, count(s, "SELECT COUNT(*) FROM outbox"), "acknowledged: the row is gone");
        assertEquals(5, requests.get());
        List<String> ids = received.stream().map(b -> b.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1")).sorted().toList();
        KeyBodies bodies = new KeyBodies();
        assertEquals(keys.stream().map(k -> bodies.id(s.archive().findById(s.archive().idOf(k).orElseThrow(), false)
                .orElseThrow()).toString()).sorted().toList(), ids, "each result once");

        Map<String, Object> state = delivery.state().get(0);
        assertEquals("logstash", state.get("name"));
        assertEquals(3L, state.get("delivered"));
        assertEquals(2L, state.get("retried"));
        assertEquals(0L, state.get("backlog"));
        assertEquals("hidden", ((ObjectNode) state.get("spec")).path("data").path("_url").asText(), "secrets are not shown");
        assertEquals(3.0, registry.get("nmws.archive.delivered").tag("archive", "logstash").functionCounter().count());

        // Refused for good (a 4xx): counted as failed, not tried again.
        answers.add(400);
        keeper.keep(observation(T0.plusSeconds(10)), UUID.randomUUID(), List.of(http));
        delivery.pass("http");
        assertEquals(0, count(s, "SELECT COUNT(*) FROM outbox"));
        assertEquals(1L, delivery.state().get(0).get("failed"));

        // An archive that never answers well: given up when its ttl runs out, and counted.
        ArchiveTarget brief = target("PT0.3S");
        for (int i = 0; i < 20; i++) {
            answers.add(503);
        }
        keeper.keep(observation(T0.plusSeconds(11)), UUID.randomUUID(), List.of(brief));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (count(s, "SELECT COUNT(*) FROM outbox") > 0 && System.nanoTime() < deadline) {
            delivery.pass("http");
            Thread.sleep(20);
        }
        assertEquals(0, count(s, "SELECT COUNT(*) FROM outbox"));
        Map<String, Object> briefState = delivery.state().stream().filter(m -> m.get("ttl").equals("PT0.3S")).findFirst().orElseThrow();
        assertEquals(1L, briefState.get("expired"));
        answers.clear();
    }

    private void oneTransaction(TestArchives.Store s) throws Exception {
        Outbox outbox = new Outbox(s.jdbc(), JSON, "mp-a", Duration.ofHours(1), 2, Clock.systemUTC());
        ResultKeeper keeper = ResultKeeper.direct(s.archive());
        keeper.setOutbox(outbox);
        ArchiveTarget http = target("PT1H");
        keeper.keep(observation(T0), UUID.randomUUID(), List.of(http));
        // A second archive of the same result whose row cannot be written: neither the result nor any row is kept.
        long only = s.jdbc().queryForObject("SELECT id FROM archive_target", Long.class);
        s.jdbc().execute(s.url().startsWith("jdbc:sqlite")
                ? "CREATE TRIGGER no_second BEFORE INSERT ON outbox WHEN NEW.target_id <> " + only
                        + " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
                : "ALTER TABLE outbox ADD CONSTRAINT no_second CHECK (target_id = " + only + ")");
        ArchiveTarget other = ArchiveTarget.parse(JSON.readTree("{\"archiver\":\"kafka\",\"data\":{\"server\":\"127.0.0.1:1\","
                + "\"topic\":\"t\"}}"), null);
        assertThrows(RuntimeException.class, () -> keeper.keep(observation(T0.plusSeconds(1)), UUID.randomUUID(),
                List.of(http, other)));
        assertEquals(1, count(s, "SELECT COUNT(*) FROM observation"));
        assertEquals(1, count(s, "SELECT COUNT(*) FROM outbox"));

        // The bound: at max-backlog rows waiting, a test meant for the archive is refused before it starts.
        keeper.keep(observation(T0.plusSeconds(2)), UUID.randomUUID(), List.of(http));
        outbox.refreshBacklog();
        ResultKeeper.NotKept full = assertThrows(ResultKeeper.NotKept.class, () -> keeper.checkRoom(List.of(http)));
        assertTrue(full.getMessage().contains("archive logstash (http at http://127.0.0.1:" + server.getAddress().getPort()
                + ") has 2 results waiting"), full.getMessage());
        keeper.checkRoom(List.of()); // a test for no archive still starts
    }

    private static void passWhenDue(Delivery delivery, Outbox outbox) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (outbox.due("http", 10).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(1, delivery.pass("http"));
    }

    private ArchiveTarget target(String ttl) throws Exception {
        return ArchiveTarget.parse(JSON.readTree("{\"archiver\":\"http\",\"ttl\":\"" + ttl + "\",\"data\":{\"_url\":"
                + "\"http://127.0.0.1:" + server.getAddress().getPort() + "/logstash\",\"op\":\"put\",\"_headers\":"
                + "{\"x-ps-observer\":\"a\"}}}"), "logstash");
    }

    private static ArchiverProperties props() {
        return new ArchiverProperties(true, Duration.ofHours(1), 1000, 100, Duration.ofMillis(50), Duration.ofMillis(200),
                Duration.ofMillis(50));
    }

    private static long count(TestArchives.Store s, String sql) {
        return s.jdbc().queryForObject(sql, Long.class);
    }

    private static Observation observation(Instant start) {
        return ArchiveContractTest.observation("mp-a", "10.0.0.1", "10.0.0.2", start, Map.of("meanRtt", 1.0), List.of());
    }

    /** Bodies that carry the result's key: what the delivery must not duplicate or lose. */
    private static final class KeyBodies implements ResultBodies {
        @Override
        public String testType(Observation o) {
            return "rtt";
        }

        @Override
        public UUID id(Observation o) {
            return UUID.nameUUIDFromBytes(("test:" + o.id()).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public ObjectNode archiveBody(Observation o) {
            return JSON.createObjectNode().put("id", id(o).toString()).put("observation", o.id());
        }

        @Override
        public ObjectNode openSearchDocument(Observation o) {
            return archiveBody(o);
        }
    }
}
