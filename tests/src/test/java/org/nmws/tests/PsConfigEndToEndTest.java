package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A point given a pSConfig template (a mesh of 127.0.0.1 and 127.0.0.2, a responder on each)
 * makes its share's schedules, which run into its archive; the template rewritten without a
 * task drops that task's schedule at the next read while its results stay; a rewrite that
 * fails the schema is refused whole and the schedules stay; GET /api/psconfig lists what it
 * does not run with why.
 */
class PsConfigEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The mesh of p1 and p2, and from p1 a task of two runs to p3 and one of one run to p4 (each far end its own). */
    private static String template(int port1, int port2, int port3, int port4, boolean withLatency) {
        return "{\"addresses\":{"
                + "\"p1\":{\"address\":\"127.0.0.1\",\"_meta\":{\"nmws-responder-port\":" + port1 + "}},"
                + "\"p2\":{\"address\":\"127.0.0.2\",\"_meta\":{\"nmws-responder-port\":" + port2 + "}},"
                + "\"p3\":{\"address\":\"127.0.0.3\",\"_meta\":{\"nmws-responder-port\":" + port3 + "}},"
                + "\"p4\":{\"address\":\"127.0.0.4\",\"_meta\":{\"nmws-responder-port\":" + port4 + "}}},"
                + "\"groups\":{\"both\":{\"type\":\"mesh\",\"addresses\":[{\"name\":\"p1\"},{\"name\":\"p2\"}]},"
                + "\"to-p3\":{\"type\":\"disjoint\",\"unidirectional\":true,\"a-addresses\":[{\"name\":\"p1\"}],"
                + "\"b-addresses\":[{\"name\":\"p3\"}]},"
                + "\"to-p4\":{\"type\":\"disjoint\",\"unidirectional\":true,\"a-addresses\":[{\"name\":\"p1\"}],"
                + "\"b-addresses\":[{\"name\":\"p4\"}]}},"
                + "\"tests\":{"
                + "\"rtt\":{\"type\":\"rtt\",\"spec\":{\"source\":\"{% address[0] %}\",\"dest\":\"{% address[1] %}\","
                + "\"count\":5,\"interval\":\"PT0.01S\"}},"
                + "\"owd\":{\"type\":\"latency\",\"spec\":{\"source\":\"{% address[0] %}\",\"dest\":\"{% address[1] %}\","
                + "\"packet-count\":20,\"packet-interval\":0.01,\"packet-timeout\":1}},"
                + "\"dns\":{\"type\":\"dns\",\"spec\":{\"query\":\"www.example.net\",\"record\":\"a\"}}},"
                + "\"schedules\":{\"often\":{\"repeat\":\"PT2S\"},\"twice\":{\"repeat\":\"PT3S\",\"max-runs\":2}},"
                + "\"tasks\":{"
                + "\"rtt-mesh\":{\"group\":\"both\",\"test\":\"rtt\",\"schedule\":\"often\"},"
                + "\"rtt-twice\":{\"group\":\"to-p3\",\"test\":\"rtt\",\"schedule\":\"twice\"},"
                + "\"rtt-once\":{\"group\":\"to-p4\",\"test\":\"rtt\"},"
                + (withLatency ? "\"owd-mesh\":{\"group\":\"both\",\"test\":\"owd\",\"schedule\":\"often\"}," : "")
                + "\"dns-mesh\":{\"group\":\"both\",\"test\":\"dns\",\"schedule\":\"often\"}}}";
    }

    @Test
    void aPointRunsItsShareOfATemplateAndFollowsItsRewrites() throws Exception {
        try (Responder r1 = Responder.start("127.0.0.1"); Responder r2 = Responder.start("127.0.0.2");
             Responder r3 = Responder.start("127.0.0.3"); Responder r4 = Responder.start("127.0.0.4")) {
            Path file = Files.createTempFile("nmws-psconfig", ".json");
            Files.writeString(file, template(r1.port, r2.port, r3.port, r4.port, true));
            try (Service s = Service.start(Files.createTempDirectory("nmws-psconfig"), "--nmws.measurement-point=point-1",
                    "--nmws.psconfig.file=" + file, "--nmws.psconfig.refresh=PT2S", "--nmws.psconfig.self=127.0.0.1")) {
                Thread.sleep(8_000);
                assertTrue(done(s, "psconfig:rtt-mesh:p1:p2") >= 2, s.get("/api/schedules/psconfig:rtt-mesh:p1:p2/runs").body());
                assertTrue(done(s, "psconfig:owd-mesh:p1:p2") >= 2, s.get("/api/schedules/psconfig:owd-mesh:p1:p2/runs").body());
                assertEquals(404, s.get("/api/schedules/psconfig:rtt-mesh:p2:p1/runs").statusCode(), "p2's share is p2's");
                assertTrue(results(s, "path.delay.roundTrip") >= 2);
                long owd = results(s, "path.delay.oneWay");
                assertTrue(owd >= 2);

                // max-runs and no repeat: two runs and one, from a start fixed when first made,
                // which the re-reads every 2 s keep
                String twice = schedule(s, "psconfig:rtt-twice:p1:p3").get("start").asText();
                for (int i = 0; i < 40 && (done(s, "psconfig:rtt-twice:p1:p3") < 2 || done(s, "psconfig:rtt-once:p1:p4") < 1); i++) {
                    Thread.sleep(500);
                }
                assertEquals(2, done(s, "psconfig:rtt-twice:p1:p3"), s.get("/api/schedules/psconfig:rtt-twice:p1:p3/runs").body());
                assertEquals(1, done(s, "psconfig:rtt-once:p1:p4"), s.get("/api/schedules/psconfig:rtt-once:p1:p4/runs").body());
                JsonNode twiceNow = schedule(s, "psconfig:rtt-twice:p1:p3");
                assertEquals(twice, twiceNow.get("start").asText(), "re-reads keep the start");
                assertEquals(java.time.Instant.parse(twice).plusSeconds(6).toString(), twiceNow.get("end").asText());
                assertEquals(2, s.get("/api/schedules/psconfig:rtt-twice:p1:p3/runs?planned=true").body().split("\"slot\"").length - 1,
                        "no third run is planned");

                JsonNode state = JSON.readTree(s.get("/api/psconfig").body());
                assertEquals(file.toString(), state.get("source").asText());
                assertTrue(state.get("error").isNull(), state.toString());
                assertEquals("psconfig:rtt-mesh:p1:p2", state.at("/tasks/rtt-mesh/0/schedule").asText(), state.toString());
                assertEquals("p2", state.at("/tasks/rtt-mesh/0/dst").asText());
                assertEquals(Integer.toString(r2.port), state.at("/tasks/rtt-mesh/0/parameters/port").asText());
                JsonNode dns = state.get("notRun").get(0);
                assertEquals("dns-mesh", dns.get("task").asText(), state.toString());
                assertEquals("test type dns has no nmws kind (nmws measures rtt, latency, latencybg, throughput and trace)",
                        dns.get("reason").asText());

                // The task removed: its schedule goes at the next read; its results stay.
                Files.writeString(file, template(r1.port, r2.port, r3.port, r4.port, false));
                Thread.sleep(4_000);
                assertEquals(404, s.get("/api/schedules/psconfig:owd-mesh:p1:p2/runs").statusCode());
                assertEquals(200, s.get("/api/schedules/psconfig:rtt-mesh:p1:p2/runs").statusCode());
                assertTrue(results(s, "path.delay.oneWay") >= owd, "the removed task's results stay in the archive");
                state = JSON.readTree(s.get("/api/psconfig").body());
                assertTrue(state.at("/tasks/owd-mesh").isMissingNode(), state.toString());

                // A rewrite that fails the schema is refused whole: the schedules stay, the state says why.
                Files.writeString(file, template(r1.port, r2.port, r3.port, r4.port, false).replace("\"PT2S\"", "\"two seconds\""));
                Thread.sleep(4_000);
                state = JSON.readTree(s.get("/api/psconfig").body());
                assertNotNull(state.get("error").textValue(), state.toString());
                assertTrue(state.get("error").asText().contains("at /schedules/often/repeat"), state.get("error").asText());
                assertTrue(state.get("error").asText().contains("#/definitions/Duration/pattern"), state.get("error").asText());
                assertEquals(200, s.get("/api/schedules/psconfig:rtt-mesh:p1:p2/runs").statusCode());
            }
        }
    }

    private static JsonNode schedule(Service s, String name) throws Exception {
        for (JsonNode sc : JSON.readTree(s.get("/api/schedules").body())) {
            if (sc.get("name").asText().equals(name)) {
                return sc;
            }
        }
        throw new AssertionError("no schedule " + name);
    }

    private static long done(Service s, String name) throws Exception {
        var r = s.get("/api/schedules/" + name + "/runs");
        assertEquals(200, r.statusCode(), r.body());
        long n = 0;
        for (JsonNode run : JSON.readTree(r.body())) {
            if (run.get("status").asText().equals("DONE")) {
                n++;
            }
        }
        return n;
    }

    private static long results(Service s, String characteristic) throws Exception {
        return JSON.readTree(s.get("/api/results?dst=127.0.0.2&limit=1000&characteristic=" + characteristic).body())
                .get("count").asLong();
    }
}
