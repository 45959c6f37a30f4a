package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Many measurement points, one archive: two real service instances on different ports and
 * with different measurement-point names share one PostgreSQL; each keeps its results tagged
 * with its own name and either one answers with both instances' results.
 */
class SharedArchiveTest {
    @TempDir
    Path dir;

    @Test
    void twoInstancesOnOnePostgresArchiveEachSeeBothInstancesResults() throws Exception {
        String base = postgresUrl();
        String schema = "shared_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        // Exporting the archive needs the admin role: an operator's key.
        String key = "k-operator-31337";
        String keyHash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        // no retention pass (it would move the April rows out of DEFAULT) while the test looks
        String[] admin = {"--nmws.security.api-keys[0].name=operator", "--nmws.security.api-keys[0].sha256=" + keyHash,
                "--nmws.security.api-keys[0].roles=admin", "--nmws.archive.retention.initial-delay=PT1H"};
        try (Service east = Service.start(dir.resolve("east"), concat(admin, "--spring.datasource.url=" + url,
                "--nmws.measurement-point=mp-east"));
             Service west = Service.start(dir.resolve("west"), concat(admin, "--spring.datasource.url=" + url,
                "--nmws.measurement-point=mp-west"))) {
            assertNotEquals(east.baseUrl, west.baseUrl);
            Instant t = Instant.parse("2026-04-01T08:00:00Z");
            long eastId = save(east, t, 1.5).id();
            long westId = save(west, t.plusSeconds(60), 2.5).id();
            assertNotEquals(eastId, westId);

            for (Service s : List.of(east, west)) {
                List<Observation> found = s.context.getBean(Archive.class).find(new ObservationQuery(ProbeTest.ROUND_TRIP,
                        "10.9.0.2", null, t, t.plusSeconds(3600), false, 10));
                assertEquals(List.of("mp-east", "mp-west"), found.stream().map(Observation::measurementPoint).toList());
                assertEquals(List.of(1.5, 2.5), found.stream().map(o -> o.summary().get("meanRtt")).toList());

                HttpResponse<String> store = s.get("/archive/store?from=2026-04-01T00:00:00Z&to=2026-04-02T00:00:00Z",
                        "X-Api-Key", key);
                assertEquals(200, store.statusCode(), store.body());
                assertEquals(List.of("mp-east", "mp-west"), points(store.body()));
            }

            // Each point made the day windows around its clock at start-up (the second found them
            // made): a result of now lands in today's, the April ones wait in DEFAULT for a pass.
            Instant now = Instant.now();
            long todayId = save(west, now, 3.5).id();
            try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
                var rs = st.executeQuery("SELECT tableoid::regclass::text FROM observation WHERE id = " + todayId);
                assertTrue(rs.next());
                assertEquals("observation_p" + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd")
                        .withZone(java.time.ZoneOffset.UTC).format(now) + "_0000", rs.getString(1));
                rs = st.executeQuery("SELECT COUNT(*) FROM pg_inherits WHERE inhparent = 'observation'::regclass");
                assertTrue(rs.next());
                // yesterday, today, the two days ahead, DEFAULT; one more when the two started on two days
                assertTrue(rs.getInt(1) == 5 || rs.getInt(1) == 6, "windows around the clock: " + rs.getInt(1));
                rs = st.executeQuery("SELECT DISTINCT tableoid::regclass::text FROM observation WHERE id IN (" + eastId + ","
                        + westId + ")");
                assertTrue(rs.next());
                assertEquals("observation_default", rs.getString(1));
            }
        } finally {
            try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /** Saves through the instance's own archive bean, tagged with the instance's configured point. */
    private static Observation save(Service s, Instant start, double meanRtt) {
        String point = s.context.getBean(NmwsProperties.class).measurementPoint();
        Observation o = new Observation(0, point, ProbeTest.ROUND_TRIP,
                new PathSubject(new Endpoint("10.9.0.1", "ipv4"), new Endpoint("10.9.0.2", "ipv4")),
                "10.9.0.1", "10.9.0.2", "nmprobe", "test", Map.of("count", "10"), new Environment(null, null),
                start, start.plusSeconds(1), Map.of("meanRtt", meanRtt), List.of());
        return s.context.getBean(Archive.class).save(o);
    }

    private static List<String> points(String storeXml) {
        Matcher m = Pattern.compile("measurementPoint=\"([^\"]*)\"").matcher(storeXml);
        List<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        assertTrue(storeXml.contains("nmwg:store"), storeXml);
        return out;
    }

    /** Same rule as the service's archive tests: no PostgreSQL fails, unless -Dnmws.test.postgres=skip. */
    static String postgresUrl() {
        String url = System.getenv("NMWS_TEST_PG_URL");
        if (url == null || url.isBlank()) {
            url = System.getProperty("nmws.test.postgres.url");
        }
        if (url == null || url.isBlank()) {
            Assumptions.assumeFalse("skip".equals(System.getProperty("nmws.test.postgres")),
                    "PostgreSQL tests skipped on request (-Dnmws.test.postgres=skip)");
            fail("no PostgreSQL for the shared-archive test: set NMWS_TEST_PG_URL (scripts/test.sh starts a server"
                    + " and sets it), or pass -Dnmws.test.postgres=skip to leave it out of a local run");
        }
        return url;
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
