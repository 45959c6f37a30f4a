package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: the fit check counts light tests against the far end's own number of sessions once
 * its responder has said it. This point runs 4 light tests to a path at once
 * (nmws.limits.shared-tests-per-path=4) and takes its responder to share as many; the responder
 * serves one session at a time (no --sessions). Two round-trip schedules of 1.5 s every 2 s fit
 * the point's own count (19 % each) and not the far end's (75 % each): the second is added
 * without a word before the far end has answered a booking, and with the warning that names
 * what the far end said after (light tests over-booked are warned of; exclusive ones refused).
 */
class FarEndSessionsFitTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String RTT = "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT2S\","
            + "\"start\":\"%s\",\"parameters\":{\"count\":\"20\",\"interval\":\"0.05\",\"port\":\"%d\"}}";

    @TempDir
    Path dir;

    @Test
    void aScheduleThatFitsThisPointsCountIsRefusedOnceTheFarEndSaidItServesOne() throws Exception {
        try (Responder r = Responder.start("127.0.0.1");
             Service s = Service.start(dir, "--nmws.limits.shared-tests-per-path=4",
                     "--nmws.limits.tests-per-client-per-minute=0")) {
            ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
                    org.nmws.service.schedule.ScheduleService.class);
            ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> warned =
                    new ch.qos.logback.core.read.ListAppender<>();
            warned.start();
            log.addAppender(warned);
            // its runs, and so its bookings, begin 15 s from now: none answered before the first check
            String rtt = String.format(RTT, Instant.now().plusSeconds(15).truncatedTo(java.time.temporal.ChronoUnit.SECONDS), r.port);
            assertEquals(200, put(s, "rtt-a", rtt).statusCode());
            assertEquals(200, put(s, "rtt-b", rtt).statusCode());
            assertTrue(warned.list.isEmpty(), "fits this point's own count, not yet told otherwise: " + warned.list);
            assertEquals(204, s.delete("/api/schedules/rtt-b").statusCode());
            // the far end answers rtt-a's bookings, saying it serves one session at a time
            Instant deadline = Instant.now().plusSeconds(45);
            while (!done(s, "rtt-a")) {
                assertTrue(Instant.now().isBefore(deadline), s.get("/api/schedules/rtt-a/runs").body());
                Thread.sleep(250);
            }
            assertEquals(200, put(s, "rtt-b", rtt).statusCode());
            log.detachAppender(warned);
            assertEquals(1, warned.list.size(), warned.list.toString());
            String warning = warned.list.get(0).getFormattedMessage();
            assertTrue(warning.startsWith("schedule rtt-b: no time available at 127.0.0.1:" + r.port + ": rtt-a"), warning);
            assertTrue(warning.contains("its responder serves 1 session at once, as it said when last asked, and this point"
                    + " runs 4 light tests to one path at once"), warning);
        }
    }

    private static HttpResponse<String> put(Service s, String name, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static boolean done(Service s, String name) throws Exception {
        for (JsonNode run : JSON.readTree(s.get("/api/schedules/" + name + "/runs").body())) {
            if (run.get("status").asText().equals("DONE")) {
                return true;
            }
        }
        return false;
    }
}
