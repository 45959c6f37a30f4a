package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nmws.client.cli.NmwsCli;
import picocli.CommandLine;

/** The nmws command-line client against the live service: exit codes and what it prints. */
class CliTest extends LiveServiceTest {
    /** The PingER datum for frames sent, whatever order the XML writer puts attributes in. */
    private static final Pattern SENT_7 = Pattern.compile("<pinger:datum name=\"sent\"[^>]* value=\"7\"");

    private record Run(int status, String out) {
    }

    private Run nmws(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--url";
        all[1] = service.baseUrl;
        System.arraycopy(args, 0, all, 2, args.length);
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new NmwsCli());
        cli.setOut(new PrintWriter(out, true));
        int status = cli.execute(all);
        return new Run(status, out.toString());
    }

    @Test
    void echoRttQueryAndMeasurePrintTheServicesAnswers() {
        Run echo = nmws("echo");
        assertEquals(0, echo.status(), echo.out());
        assertTrue(echo.out().contains("success.echo"), echo.out());

        Run rtt = nmws("rtt", "127.0.0.1", "--count", "7", "--interval", "0.002");
        assertEquals(0, rtt.status(), rtt.out());
        assertTrue(SENT_7.matcher(rtt.out()).find(), rtt.out());

        Run query = nmws("query", "127.0.0.1");
        assertEquals(0, query.status(), query.out());
        assertTrue(SENT_7.matcher(query.out()).find(), "the stored test comes back: " + query.out());

        Run soap12 = nmws("--soap12", "measure", "127.0.0.1", "-c", "path.delay.oneWay", "-p", "count=50", "-p", "interval=0.0005");
        assertEquals(0, soap12.status(), soap12.out());
        assertTrue(soap12.out().contains("path.delay.oneWay"), soap12.out());

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
    void testsListsRunningTestsAndCancelSaysWhenThereIsNone() {
        Run list = nmws("tests");
        assertEquals(0, list.status(), list.out());
        assertEquals("[]", list.out().trim(), "nothing runs between tests");
        Run cancel = nmws("tests", "--cancel", "no-such-test");
        assertEquals(2, cancel.status());
        assertTrue(cancel.out().contains("no running test no-such-test"), cancel.out());
    }
}
