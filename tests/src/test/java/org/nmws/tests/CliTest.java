package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nmws.client.cli.NmwsCli;
import picocli.CommandLine;

/** The nmws command-line client against the live service: exit codes and what it prints. */
class CliTest extends LiveServiceTest {
    /** The PingER datum for frames sent, whatever order the XML writer puts attributes in. */
    private static final Pattern SENT_7 = Pattern.compile("<pinger:datum name=\"sent\"[^>]* value=\"7\"");

    private record Run(int status, String out, String err) {
        Run(int status, String out) {
            this(status, out, "");
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private Run nmws(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--url";
        all[1] = service.baseUrl;
        System.arraycopy(args, 0, all, 2, args.length);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = NmwsCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int status = cli.execute(all);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void echoRttQueryAndMeasurePrintTheServicesAnswersAsTablesJsonOrXml() throws Exception {
        Run echo = nmws("echo");
        assertEquals(0, echo.status(), echo.out());
        assertEquals("success.echo: The echo request has passed.", echo.out().trim());

        // a table by default: a heading, then a figure a line with its value and unit
        Run rtt = nmws("rtt", "127.0.0.1", "--count", "7", "--interval", "0.002");
        assertEquals(0, rtt.status(), rtt.out());
        List<String> lines = rtt.out().lines().toList();
        assertTrue(lines.get(0).matches("http://ggf.org/ns/nmwg/tools/ping/2.0/  to 127.0.0.1  \\(maKey \\d+\\)"), rtt.out());
        assertTrue(lines.get(1).matches("FIGURE +VALUE +UNIT"), rtt.out());
        assertTrue(lines.contains("sent         7"), rtt.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("meanRtt +[0-9.]+ +ms")), rtt.out());
        assertEquals("", rtt.err(), "no progress bar when standard error is not a terminal");

        // the same stored result as XML and as JSON
        Run query = nmws("query", "127.0.0.1", "--xml");
        assertEquals(0, query.status(), query.out());
        assertTrue(SENT_7.matcher(query.out()).find(), "the stored test comes back: " + query.out());
        Run queryJson = nmws("--json", "query", "127.0.0.1");
        assertEquals(0, queryJson.status(), queryJson.out());
        com.fasterxml.jackson.databind.JsonNode stored = JSON.readTree(queryJson.out()).get("results").get(0);
        assertEquals(7, stored.get("figures").get("sent").asInt());
        assertEquals("ms", stored.get("units").get("meanRtt").asText());
        assertEquals("127.0.0.1", stored.get("subject").get("dst").asText());

        Run soap12 = nmws("--soap12", "--json", "measure", "127.0.0.1", "-c", "path.delay.oneWay", "-p", "count=50", "-p", "interval=0.0005");
        assertEquals(0, soap12.status(), soap12.out());
        com.fasterxml.jackson.databind.JsonNode owd = JSON.readTree(soap12.out()).get("results").get(0);
        assertEquals("path.delay.oneWay", owd.get("eventType").asText());
        assertEquals(50, owd.get("figures").get("sent").asInt());
        assertTrue(owd.get("figures").get("medianDelayMs").isNumber(), owd.toString());
        // the datums without a name (owamp summary, iperf) as objects of their attributes
        assertTrue(owd.get("datums").findValues("type").stream().anyMatch(t -> t.asText().equals("summary:datum")), owd.toString());

        Run both = nmws("--json", "--xml", "echo");
        assertEquals(2, both.status());
        assertTrue(both.err().contains("--json and --xml exclude each other"), both.err());

        Run bad = nmws("measure", "127.0.0.1", "-c", "path.colour.favourite");
        assertEquals(2, bad.status(), "an NMWG error result is exit status 2: " + bad.out());
        assertTrue(bad.out().contains("error.common.event_type_not_supported"), bad.out());
    }

    @Test
    void theInstalledCliPrintsOnlyItsAnswerAndOneLineWhenTheServiceCannotBeReached() throws Exception {
        java.nio.file.Path jar = java.nio.file.Path.of(System.getProperty("nmws.client.jar",
                "../client/target/nmws-client-0.1.0-SNAPSHOT-exec.jar"));
        String javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process ok = new ProcessBuilder(javaBin, "-jar", jar.toString(), "--url", service.baseUrl, "echo").start();
        String out = new String(ok.getInputStream().readAllBytes());
        String err = new String(ok.getErrorStream().readAllBytes());
        assertEquals(0, ok.waitFor());
        assertTrue(out.contains("success.echo"), out);
        assertEquals("", err, "no library noise on stderr");
        Process down = new ProcessBuilder(javaBin, "-jar", jar.toString(), "--url", "http://127.0.0.1:1", "echo").start();
        String downOut = new String(down.getInputStream().readAllBytes());
        String downErr = new String(down.getErrorStream().readAllBytes());
        assertEquals(2, down.waitFor());
        assertEquals("", downOut);
        assertEquals(1, downErr.lines().count(), downErr);
        assertTrue(downErr.startsWith("nmws: cannot reach http://127.0.0.1:1"), downErr);
    }

    @Test
    void aLongTestDrawsAProgressBarOnStandardErrorAndErasesIt() {
        // 300 frames 10 ms apart: three seconds, polled every quarter second once it has run one
        Run rtt = nmws("--progress=always", "rtt", "127.0.0.1", "--count", "300", "--interval", "0.01");
        assertEquals(0, rtt.status(), rtt.out() + rtt.err());
        assertTrue(rtt.out().lines().anyMatch(l -> l.equals("sent         300")), rtt.out());
        java.util.regex.Matcher bar = Pattern.compile("\r\\[(#*)(\\.*)\\] +(\\d+)% (\\d+)/300 ").matcher(rtt.err());
        int frames = 0;
        int lastDone = -1;
        while (bar.find()) {
            frames++;
            assertEquals(30, bar.group(1).length() + bar.group(2).length(), "30 cells wide");
            int done = Integer.parseInt(bar.group(4));
            assertTrue(done >= lastDone, "progress never goes back: " + rtt.err());
            assertEquals(100 * done / 300, Integer.parseInt(bar.group(3)));
            lastDone = done;
        }
        assertTrue(frames >= 3 && lastDone > 0, "frames drawn: " + frames + " in " + rtt.err());
        assertTrue(rtt.err().endsWith("\r"), "erased before the answer: " + rtt.err());
        Run quiet = nmws("--progress=never", "rtt", "127.0.0.1", "--count", "150", "--interval", "0.01");
        assertEquals("", quiet.err());
    }

    @Test
    void helpShowsExamples() {
        Run help = nmws("--help");
        assertEquals(0, help.status());
        assertTrue(help.out().contains("Examples:") && help.out().contains("nmws rtt 10.0.0.2 --count 100")
                && help.out().lines().allMatch(l -> l.length() <= 80), help.out());
        Run measure = nmws("measure", "--help");
        assertTrue(measure.out().contains("nmws measure 10.0.0.2 -c path.delay.oneWay -p count=1000"), measure.out());
    }

    @Test
    void testsListsRunningTestsAndCancelSaysWhenThereIsNone() {
        Run list = nmws("tests");
        assertEquals(0, list.status(), list.out());
        assertEquals("no tests running", list.out().trim(), "nothing runs between tests");
        assertEquals("[]", nmws("tests", "--json").out().trim());
        Run cancel = nmws("tests", "--cancel", "no-such-test");
        assertEquals(2, cancel.status());
        assertTrue(cancel.out().contains("no running test no-such-test"), cancel.out());
    }
}
