package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus endpoint through real HTTP after real tests: counters move by exactly the
 * tests run, a path's gauge reads the value the archive keeps, the number of paths kept as
 * gauges is bounded, scheduled runs are counted by what became of them, and nothing but the
 * operators' endpoints is exposed.
 */
class MetricsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** One sample line of the Prometheus text format: name{labels} value. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)$");

    @Test
    void testsAreCountedTimedAndTheirLastValuesReadAsTheArchiveKeepsThem() throws Exception {
        try (Responder responder = Responder.start();
             Service service = Service.start(Files.createTempDirectory("nmws-metrics"), "--nmws.responder-port=" + responder.port,
                     "--nmws.metrics.max-paths=1",
                     // a schedule whose every run fails (no responder on 127.0.0.9): failed runs, then back-off non-starters
                     "--nmws.scheduler.schedules[0].name=nowhere", "--nmws.scheduler.schedules[0].characteristic=path.delay.oneWay",
                     "--nmws.scheduler.schedules[0].dst=127.0.0.9", "--nmws.scheduler.schedules[0].period=PT1S",
                     "--nmws.scheduler.schedules[0].parameters.count=5")) {
            String rtt = "nmws_tests_total{characteristic=\"path.delay.roundTrip\",outcome=\"ok\",test=\"round_trip\"}";
            String rttFailed = "nmws_tests_total{characteristic=\"path.delay.roundTrip\",outcome=\"failed\",test=\"round_trip\"}";
            String rttTimed = "nmws_test_duration_seconds_count{characteristic=\"path.delay.roundTrip\",outcome=\"ok\",test=\"round_trip\"}";
            Map<String, Double> before = scrape(service);

            String answer = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 7, ""), "application/xml", null).body();
            assertFalse(answer.contains("error."), answer);
            Map<String, Double> after = scrape(service);
            assertEquals(before.getOrDefault(rtt, 0.0) + 1, after.get(rtt), "one more round trip kept");
            assertEquals(before.getOrDefault(rttTimed, 0.0) + 1, after.get(rttTimed), "and timed");

            // The gauge of each figure reads what /api/results gives for the test just kept.
            JsonNode kept = JSON.readTree(service.get("/api/results?dst=127.0.0.1&limit=1").body()).get("results").get(0);
            String path = "src=\"" + kept.get("srcAddress").asText() + "\",dst=\"127.0.0.1\",characteristic=\"path.delay.roundTrip\"";
            for (String figure : new String[] {"meanRtt", "minRtt", "sent", "lossPercent"}) {
                String key = "nmws_path_last{characteristic=\"path.delay.roundTrip\",dst=\"127.0.0.1\",figure=\"" + figure
                        + "\",src=\"" + kept.get("srcAddress").asText() + "\"}";
                assertEquals(kept.get("summary").get(figure).asDouble(), after.get(key), figure + " of " + path + " in\n" + after);
            }
            assertEquals(7.0, after.get("nmws_path_last{characteristic=\"path.delay.roundTrip\",dst=\"127.0.0.1\",figure=\"sent\",src=\""
                    + kept.get("srcAddress").asText() + "\"}"));

            // A test that fails (nothing listens on port 1) is counted as failed and leaves no gauge.
            String failed = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 3,
                    "<nmwg:parameter name=\"port\">1</nmwg:parameter>"), "application/xml", null).body();
            assertTrue(failed.contains("error.mp.measurement"), failed);
            // A second path with max-paths=1: the first path's series go.
            answer = service.post("/nmwg", SoapEndToEndTest.measurementRequest("localhost", 3, "")
                    .replace("type=\"ipv4\"", "type=\"hostname\""), "application/xml", null).body();
            assertFalse(answer.contains("error."), answer);
            Map<String, Double> last = scrape(service);
            assertEquals(before.getOrDefault(rttFailed, 0.0) + 1, last.get(rttFailed), "one failed round trip");
            assertEquals(before.getOrDefault(rtt, 0.0) + 2, last.get(rtt), "two kept");
            assertTrue(last.keySet().stream().noneMatch(k -> k.startsWith("nmws_path_last") && k.contains("dst=\"127.0.0.1\"")),
                    "the older path was dropped: " + last.keySet());
            assertEquals(3.0, last.entrySet().stream().filter(e -> e.getKey().startsWith("nmws_path_last{")
                    && e.getKey().contains("dst=\"localhost\"") && e.getKey().contains("figure=\"sent\"")).findFirst().orElseThrow().getValue());

            // The schedule's runs to a host without a responder: failed ones, then back-off non-starters.
            long deadline = System.nanoTime() + 20_000_000_000L;
            Map<String, Double> runs;
            String failedRuns = "nmws_scheduled_runs_total{cause=\"failed\",status=\"failed\"}";
            String backedOff = "nmws_scheduled_runs_total{cause=\"backoff\",status=\"nonstarter\"}";
            do {
                Thread.sleep(500);
                runs = scrape(service);
            } while ((runs.get(failedRuns) == null || runs.get(backedOff) == null) && System.nanoTime() < deadline);
            assertTrue(runs.getOrDefault(failedRuns, 0.0) >= 1 && runs.getOrDefault(backedOff, 0.0) >= 1,
                    "failed and backed-off runs counted: " + runs);
            assertTrue(runs.get("nmws_tests_total{characteristic=\"path.delay.oneWay\",outcome=\"failed\",test=\"udp_stream\"}") >= 1,
                    "the scheduled tests count as tests too: " + runs);
            assertTrue(runs.containsKey("nmws_tests_running"), "the running tests' gauge is there");

            // Only the operators' endpoints are exposed.
            assertEquals(404, service.get("/actuator/env").statusCode());
            assertEquals(404, service.get("/actuator/heapdump").statusCode());
        }
    }

    /** Every sample of /actuator/prometheus by its name and labels as written. */
    static Map<String, Double> scrape(Service service) throws Exception {
        HttpResponse<String> r = service.get("/actuator/prometheus");
        assertEquals(200, r.statusCode(), "anonymous clients have the read role by default");
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), r.headers().toString());
        Map<String, Double> samples = new HashMap<>();
        for (String line : r.body().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return samples;
    }
}
