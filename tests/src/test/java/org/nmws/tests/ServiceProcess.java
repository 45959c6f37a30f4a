package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.nmws.tests.lab.ServiceLaunch;

/** The service jar as a process of its own, for tests that kill it. */
final class ServiceProcess {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ServiceProcess() {
    }

    /**
     * Starts the jar with args, its output in log, and waits until it answers on port. Started as
     * the lab starts it (extracted, with a class-data-sharing archive: about half the start time).
     */
    static Process start(Path jar, List<String> args, Path log, int port) throws Exception {
        List<String> cmd = new ArrayList<>(ServiceLaunch.command(jar, "384m"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("service exited: " + Files.readString(log));
            }
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/actuator/health")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 || r.statusCode() == 503) {
                    return p;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        p.destroyForcibly();
        throw new IllegalStateException("service did not answer within 90 s: " + Files.readString(log));
    }

    /** SIGKILL, as the kernel's OOM killer or kill -9 gives it: no shutdown hook runs. */
    static void kill9(Process p) throws Exception {
        Process k = new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start();
        assertEquals(0, k.waitFor());
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        assertEquals(137, p.exitValue());
    }
}
