package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.nmws.service.archive.ResultKeeper;
import org.nmws.service.measure.RunningTests;
import org.w3c.dom.Element;

/**
 * Issue 21, faults: the archive down. A real service on a PostgreSQL of the test's own runs a
 * round trip every 4 s by schedule; PostgreSQL is stopped (pg_ctl -m fast) while a scheduled
 * run is in flight and stays down (at most 30 s) until more than what is asserted of the
 * outage happened: six on-demand answers and five scheduled runs begun after its first 4 s,
 * where five and four are asserted; then it is started again. Every test that ran is in the
 * archive exactly once: the scheduled runs recorded DONE point at their observations, the
 * on-demand answers (each with its datums and a success.ma.pending pair) match one row each,
 * no result key is kept twice, nothing is left held or RUNNING. Prints what was held and how long the archive was degraded.
 */
class ArchiveDownFaultTest {

    @Test
    void resultsMeasuredWhilePostgresIsStoppedAreHeldAndWrittenOnceWhenItReturns() throws Exception {
        Path data = Files.createTempDirectory("nmws-archive-down");
        try (PrivatePostgres pg = PrivatePostgres.start();
             Responder scheduled = Responder.start("127.0.0.1");
             Responder onDemand = Responder.start("127.0.0.2");
             Service service = Service.start(data, "--spring.datasource.url=" + pg.url,
                     "--nmws.responder-port=" + scheduled.port, "--nmws.measurement-point=point-down",
                     "--nmws.archive.spool.drain-interval=PT0.5S",
                     // about 2.5 s a run, every 4 s: a run is in flight when the database stops
                     "--nmws.scheduler.schedules[0].name=rtt-held", "--nmws.scheduler.schedules[0].characteristic=path.delay.roundTrip",
                     "--nmws.scheduler.schedules[0].dst=127.0.0.1", "--nmws.scheduler.schedules[0].period=PT4S",
                     "--nmws.scheduler.schedules[0].parameters.count=100",
                     "--nmws.scheduler.schedules[0].parameters.interval=0.025")) {
            ResultKeeper keeper = service.context.getBean(ResultKeeper.class);
            RunningTests running = service.context.getBean(RunningTests.class);
            waitFor("two scheduled runs done before the fault", Duration.ofSeconds(40),
                    () -> count(pg.url, "SELECT COUNT(*) FROM scheduled_run WHERE status = 'DONE'") >= 2);
            waitFor("a scheduled run in flight", Duration.ofSeconds(20),
                    () -> running.list().stream().anyMatch(r -> r.dst().equals("127.0.0.1") && r.done() > 0));

            long stoppedAt = System.nanoTime();
            long stoppedWallMs = System.currentTimeMillis();
            pg.stop();
            List<Long> answerMillis = new ArrayList<>();
            List<String> heldKeys = new ArrayList<>();
            int answered = 0;
            // the scheduled runs seen under way that began after the first 4 s down (ranWhileDown below)
            java.util.Set<String> runsWhileDown = new java.util.HashSet<>();
            while (System.nanoTime() - stoppedAt < Duration.ofSeconds(30).toNanos()
                    && (answered < 6 || runsWhileDown.size() < 5)) {
                long t = System.nanoTime();
                HttpResponse<String> resp = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.2", 10,
                        "<nmwg:parameter name=\"port\">" + onDemand.port + "</nmwg:parameter>"), "application/xml", null);
                answerMillis.add((System.nanoTime() - t) / 1_000_000);
                assertEquals(200, resp.statusCode(), resp.body());
                Element message = Service.validatedMessage(resp.body());
                assertTrue(resp.body().contains("success.ma.pending"), "told the result is held: " + resp.body());
                // its maKey is the held result's own ("r." and its result key), not an id it does not have yet
                java.util.regex.Matcher key = HELD_KEY.matcher(resp.body());
                assertTrue(key.find(), "a held result's maKey: " + resp.body());
                heldKeys.add(key.group());
                if (answered == 0) {
                    // v1 as XML-RPC says so too: pending, and the same kind of key
                    String rpc = service.post("/RPC2", xmlRpc("127.0.0.2", onDemand.port), "text/xml", null).body();
                    assertTrue(rpc.contains("<name>pending</name><value><boolean>1</boolean></value>") && HELD_KEY.matcher(rpc).find(),
                            rpc);
                    answered++; // its result is an on-demand row too
                }
                assertTrue(message.getElementsByTagNameNS("http://ggf.org/ns/nmwg/tools/pinger/2.0/", "datum").getLength() > 0
                                || resp.body().contains("meanRtt") || resp.body().contains("minRtt"),
                        "the result itself is answered: " + resp.body());
                answered++;
                for (int i = 0; i < 10; i++) { // 2 s before the next, watching the scheduled runs
                    for (RunningTests.Running r : running.list()) {
                        if (r.dst().equals("127.0.0.1") && r.started().toEpochMilli() > stoppedWallMs + 4_000) {
                            runsWhileDown.add(r.id());
                        }
                    }
                    Thread.sleep(200);
                }
            }
            long heldDuringOutage = keeper.held();
            String during = service.get("/actuator/prometheus").body();
            assertTrue(during.contains("nmws_archive_spool_results " + heldDuringOutage + ".0"), "held results as a metric: "
                    + during.lines().filter(l -> l.startsWith("nmws_archive_spool")).toList());
            assertTrue(heldDuringOutage >= answered, heldDuringOutage + " held, " + answered + " answered on demand");

            long restartAt = System.nanoTime();
            long restartWallMs = System.currentTimeMillis();
            pg.startAgain();
            long startedAt = System.nanoTime();
            waitFor("every held result written", Duration.ofSeconds(40), () -> keeper.held() == 0);
            long drainedAt = System.nanoTime();
            // the scheduler finds the database back within its probe's period (5 s) and writes the
            // records of the runs it started meanwhile
            waitFor("the runs started while the database was down recorded", Duration.ofSeconds(30),
                    () -> count(pg.url, "SELECT COUNT(*) FROM scheduled_run WHERE status = 'DONE' AND started_ms > "
                            + (stoppedWallMs + 4_000) + " AND started_ms < " + restartWallMs) >= 4);
            // every held key now finds its result, written once
            for (String k : heldKeys) {
                String found = service.post("/nmwg", setupDataByKey(k), "application/xml", null).body();
                assertFalse(found.contains("success.ma.pending") || found.contains("error."), k + ": " + found);
                assertTrue(found.contains("meanRtt") || found.contains("minRtt"), k + ": " + found);
            }
            waitFor("no run left RUNNING", Duration.ofSeconds(30),
                    () -> count(pg.url, "SELECT COUNT(*) FROM scheduled_run WHERE status = 'RUNNING'") == 0);

            // Lost: a DONE run without its observation, an on-demand answer without its row.
            long doneRuns = count(pg.url, "SELECT COUNT(*) FROM scheduled_run WHERE status = 'DONE'");
            long doneWithoutRow = count(pg.url, "SELECT COUNT(*) FROM scheduled_run r WHERE r.status = 'DONE' AND NOT EXISTS "
                    + "(SELECT 1 FROM observation o WHERE o.id = r.observation_id)");
            long scheduledRows = count(pg.url, "SELECT COUNT(*) FROM observation WHERE dst_host = '127.0.0.1'");
            long onDemandRows = count(pg.url, "SELECT COUNT(*) FROM observation WHERE dst_host = '127.0.0.2'");
            long heldRuns = count(pg.url, "SELECT COUNT(*) FROM scheduled_run WHERE status = 'DONE' AND reason LIKE '%held%'");
            // Twice: a key kept twice, or two runs pointing at one row.
            long keysTwice = count(pg.url, "SELECT COUNT(*) FROM (SELECT result_key FROM observation WHERE result_key IS NOT NULL"
                    + " GROUP BY result_key HAVING COUNT(*) > 1) t");
            long rowsTwice = count(pg.url, "SELECT COUNT(*) FROM (SELECT observation_id FROM scheduled_run WHERE observation_id"
                    + " IS NOT NULL GROUP BY observation_id HAVING COUNT(*) > 1) t");
            long lost = doneWithoutRow + Math.abs(scheduledRows - doneRuns) + Math.abs(onDemandRows - answered);
            long twice = keysTwice + rowsTwice;
            System.out.printf("archive-down figures: PostgreSQL stopped %.1f s; %d tests answered on demand while down "
                            + "(answer times %s ms); %d results held (%d scheduled runs among them); %d scheduled runs done, "
                            + "%d rows; time to drain after the start %.1f s; degraded (stop to drained) %.1f s; lost %d, twice %d%n",
                    (restartAt - stoppedAt) / 1e9, answered, answerMillis, keeper.heldTotal(), heldRuns, doneRuns,
                    scheduledRows, (drainedAt - startedAt) / 1e9, (drainedAt - stoppedAt) / 1e9, lost, twice);
            assertTrue(answered >= 5, answered + " on-demand tests answered while the archive was down");
            // the schedule kept running while its database was down (from what it had planned), each
            // run recorded DONE with its result once the database returned; none ran twice (rowsTwice)
            long ranWhileDown = count(pg.url, "SELECT COUNT(*) FROM scheduled_run WHERE status = 'DONE' AND started_ms > "
                    + (stoppedWallMs + 4_000) + " AND started_ms < " + restartWallMs);
            System.out.printf("scheduled runs started while PostgreSQL was down: %d of about %d slots%n", ranWhileDown,
                    (restartWallMs - stoppedWallMs - 4_000) / 4_000);
            assertTrue(ranWhileDown >= 4, ranWhileDown + " scheduled runs started while the database was down");
            assertTrue(heldRuns >= 1, "the run in flight when the database stopped was held and recorded DONE");
            assertEquals(keeper.heldTotal(), keeper.written(), "every held result written");
            assertEquals(0, doneWithoutRow, "every DONE run points at its observation");
            assertEquals(doneRuns, scheduledRows, "one row per DONE scheduled run");
            assertEquals(answered, onDemandRows, "one row per on-demand answer");
            assertEquals(0, twice, "nothing kept twice");
            assertEquals(0, lost);
            assertEquals(List.of(), listSpool(data), "the spool is empty");
            String metrics = service.get("/actuator/prometheus").body();
            assertTrue(metrics.contains("nmws_archive_spool_results 0.0")
                    && metrics.contains("nmws_archive_spool_held_total " + keeper.heldTotal() + ".0")
                    && metrics.contains("nmws_archive_spool_written_total " + keeper.heldTotal() + ".0")
                    && metrics.contains("nmws_archive_spool_refused_total 0.0"),
                    metrics.lines().filter(l -> l.startsWith("nmws_archive_spool")).toList().toString());
        }
    }

    /** A held result's maKey as answers carry it. */
    private static final java.util.regex.Pattern HELD_KEY = java.util.regex.Pattern.compile(
            "r\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private static String setupDataByKey(String key) {
        return "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"SetupDataRequest\" id=\"q\">"
                + "<nmwg:metadata id=\"m\"><nmwg:key id=\"k\"><nmwg:parameters id=\"kp\"><nmwg:parameter name=\"maKey\">" + key
                + "</nmwg:parameter></nmwg:parameters></nmwg:key></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/>"
                + "</nmwg:message>";
    }

    /** NetworkMeasurementRequest over XML-RPC (the v1 dialect): 10 round trips to dst's responder. */
    private static String xmlRpc(String dst, int port) {
        return "<?xml version=\"1.0\"?><methodCall><methodName>NetworkMeasurementRequest</methodName><params><param>"
                + "<value><struct><member><name>characteristic</name><value><string>path.delay.roundTrip</string></value>"
                + "</member><member><name>subject</name><value><struct><member><name>path</name><value><struct>"
                + "<member><name>destination</name><value><struct><member><name>name</name>"
                + "<value><string>" + dst + "</string></value></member></struct></value></member>"
                + "</struct></value></member></struct></value></member>"
                + "<member><name>methodology</name><value><struct><member><name>parameters</name><value><struct>"
                + "<member><name>count</name><value><string>10</string></value></member>"
                + "<member><name>interval</name><value><string>0.005</string></value></member>"
                + "<member><name>port</name><value><string>" + port + "</string></value></member>"
                + "</struct></value></member></struct></value></member></struct></value></param></params></methodCall>";
    }

    private static List<String> listSpool(Path data) throws Exception {
        try (var files = Files.list(data.resolve("spool"))) {
            return files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
        }
    }

    static long count(String url, String sql) {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Polls a condition every 200 ms up to a bound; fails with what was awaited. */
    static void waitFor(String what, Duration bound, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                // the database is not up yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("not within " + bound.toSeconds() + " s: " + what);
    }
}
