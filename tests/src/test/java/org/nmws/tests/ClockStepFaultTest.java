package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Issue 21, faults: this host's clock stepped 1 s forwards and then 1 s backwards (as
 * ntpdate or chronyd's makestep would) while a schedule runs a round trip every 2 s and
 * one-way tests run on demand to another responder. Each one-way answer taken across a step says so in its
 * environment (env:clock stepNs, about +1 s and -1 s), one without a step does not; the
 * schedule's runs neither skip a slot nor run one twice. Steps the real CLOCK_REALTIME (root,
 * CAP_SYS_TIME), net zero: each forward step is undone even when the test fails.
 */
class ClockStepFaultTest {
    private static final String ENV = "http://nmws.org/ns/environment/1.0/";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Seconds the clock stands stepped by this test, undone at its end whatever happens. */
    private int stepped;

    @Test
    void oneWayAnswersFlagAStepAndScheduledRunsNeitherSkipNorDouble() throws Exception {
        Assumptions.assumeTrue(step(0), "this host's clock cannot be set here (no CAP_SYS_TIME)");
        try {
            run();
        } finally {
            if (stepped != 0) {
                step(-stepped);
            }
        }
    }

    private void run() throws Exception {
        try (Responder responder = Responder.start();
             Responder onDemand = Responder.start("127.0.0.2");
             Service service = Service.start(Files.createTempDirectory("nmws-clock-step"),
                     "--nmws.responder-port=" + responder.port, "--nmws.measurement-point=point-step",
                     "--nmws.scheduler.schedules[0].name=rtt-step", "--nmws.scheduler.schedules[0].characteristic=path.delay.roundTrip",
                     "--nmws.scheduler.schedules[0].dst=127.0.0.1", "--nmws.scheduler.schedules[0].period=PT2S",
                     "--nmws.scheduler.schedules[0].slip=PT0S", "--nmws.scheduler.schedules[0].parameters.count=5",
                     "--nmws.scheduler.schedules[0].parameters.interval=0.01")) {
            // the schedule under way (a run done), for at most 3 s, before the first one-way test
            for (long deadline = System.nanoTime() + 3_000_000_000L; System.nanoTime() < deadline && !aRunDone(service); ) {
                Thread.sleep(200);
            }
            Long quiet = oneWayStep(service, onDemand, 0);
            assertEquals(null, quiet, "no step, none told");
            Long forwards = oneWayStep(service, onDemand, 1);
            assertTrue(forwards != null && Math.abs(forwards - 1_000_000_000L) < 50_000_000L, "told +1 s: " + forwards);
            Thread.sleep(2_500);
            Long backwards = oneWayStep(service, onDemand, -1);
            assertTrue(backwards != null && Math.abs(backwards + 1_000_000_000L) < 50_000_000L, "told -1 s: " + backwards);
            Thread.sleep(4_500);

            // Every slot from the first to the last run that came due ran once, none was skipped.
            // Read once no run is under way (the check used to land in the last slot's run now and then).
            TreeMap<Long, List<String>> bySlot = new TreeMap<>();
            for (int tries = 0; tries < 50; tries++) {
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(service.baseUrl + "/api/schedules/rtt-step/runs?limit=1000")).build(),
                        HttpResponse.BodyHandlers.ofString());
                bySlot.clear();
                boolean running = false;
                for (JsonNode run : JSON.readTree(r.body())) {
                    if (!run.get("status").asText().equals("PLANNED")) {
                        running |= run.get("status").asText().equals("RUNNING");
                        bySlot.computeIfAbsent(run.get("slot").asLong(), k -> new ArrayList<>()).add(run.get("status").asText()
                                + " " + run.get("planned").asText() + " " + run.get("reason").asText());
                    }
                }
                if (!running) {
                    break;
                }
                Thread.sleep(100);
            }
            assertTrue(bySlot.size() >= 6, "runs across both steps: " + bySlot);
            assertEquals(bySlot.lastKey() - bySlot.firstKey() + 1, bySlot.size(), "no slot skipped: " + bySlot);
            for (List<String> runs : bySlot.values()) {
                assertEquals(1, runs.size(), "each slot once: " + bySlot);
                assertTrue(runs.get(0).startsWith("DONE"), "each ran: " + bySlot);
            }
        }
    }

    private static boolean aRunDone(Service service) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(service.baseUrl + "/api/schedules/rtt-step/runs?limit=1000")).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            return false;
        }
        for (JsonNode run : JSON.readTree(r.body())) {
            if (run.get("status").asText().equals("DONE")) {
                return true;
            }
        }
        return false;
    }

    /** A 3 s one-way test with the clock stepped by {@code seconds} 1 s into it; the stepNs its answer tells, or null. */
    private Long oneWayStep(Service service, Responder far, int seconds) throws Exception {
        String request = SoapEndToEndTest.measurementRequest("127.0.0.2", 600,
                "<nmwg:parameter name=\"port\">" + far.port + "</nmwg:parameter>")
                .replace("path.delay.roundTrip", "path.delay.oneWay");
        CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return service.post("/nmwg", request, "application/xml", null).body();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(1_000);
        if (seconds != 0) {
            assertTrue(step(seconds), "stepped the clock");
            stepped += seconds;
        }
        Element message = Service.validatedMessage(answer.get(30, TimeUnit.SECONDS));
        NodeList clocks = message.getElementsByTagNameNS(ENV, "clock");
        assertTrue(clocks.getLength() > 0, "the answer tells the clock: " + message.getTextContent());
        String step = ((Element) clocks.item(0)).getAttribute("stepNs");
        return step.isEmpty() ? null : Long.valueOf(step);
    }

    /** Steps CLOCK_REALTIME by seconds in one call (read and set in one process: microseconds apart); false when refused. */
    private static boolean step(int seconds) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", "import time; time.clock_settime_ns(time.CLOCK_REALTIME, "
                + "time.clock_gettime_ns(time.CLOCK_REALTIME) + " + seconds + " * 10**9)").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor() == 0;
    }
}
