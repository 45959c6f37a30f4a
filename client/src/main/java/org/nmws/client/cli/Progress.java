package org.nmws.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * A progress bar on standard error while a test runs: polls the service's running tests
 * (GET /api/tests) for the test to this destination and draws its frames done against its
 * total. Drawn only once the test has run a second (short tests show nothing), and erased
 * before the answer is printed. One named daemon thread; a failed poll just skips a frame.
 */
final class Progress implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(250);
    private static final int WIDTH = 30;

    private final Thread thread;
    private final PrintWriter err;
    private volatile boolean stop;
    private boolean drawn;

    private Progress(String baseUrl, Map<String, String> headers, String dst, PrintWriter err) {
        this.err = err;
        Instant asked = Instant.now().minusSeconds(2); // the service's clock may differ a little
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl.replaceAll("/+$", "") + "/api/tests"))
                .timeout(Duration.ofSeconds(2)).GET();
        headers.forEach(b::header);
        HttpRequest request = b.build();
        this.thread = new Thread(() -> poll(http, request, dst, asked), "nmws-progress");
        thread.setDaemon(true);
        thread.start();
    }

    /** A bar for the test to dst, or nothing (a no-op) when not wanted: mode auto draws only on a terminal. */
    static AutoCloseable start(String mode, String baseUrl, Map<String, String> headers, String dst, PrintWriter err) {
        boolean on = switch (mode) {
            case "always" -> true;
            case "never" -> false;
            default -> stderrIsATerminal();
        };
        return on ? new Progress(baseUrl, headers, dst, err) : () -> { };
    }

    /**
     * Whether standard error is a terminal. Java 17's System.console() asks about standard input
     * and output, so on Linux this reads where fd 2 points; elsewhere it says no.
     */
    static boolean stderrIsATerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (Exception e) {
            return false;
        }
    }

    private void poll(HttpClient http, HttpRequest request, String dst, Instant asked) {
        long t0 = System.nanoTime();
        while (!stop) {
            try {
                Thread.sleep(POLL.toMillis());
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200 || stop) {
                    continue;
                }
                JsonNode mine = null;
                for (JsonNode t : Answers.JSON.readTree(r.body())) {
                    if (dst.equalsIgnoreCase(t.path("dst").asText()) && !Instant.parse(t.path("started").asText()).isBefore(asked)) {
                        mine = t;
                    }
                }
                if (mine != null && System.nanoTime() - t0 >= 1_000_000_000L) {
                    draw(mine.path("done").asInt(), mine.path("total").asInt(), (System.nanoTime() - t0) / 1e9);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // the service is busy or gone: the answer (or its error) will say; keep polling
            }
        }
    }

    /** One frame of the bar, drawn over the last with a carriage return. */
    synchronized void draw(int done, int total, double seconds) {
        if (stop) {
            return;
        }
        String line;
        if (total > 0) {
            int filled = (int) Math.min(WIDTH, (long) WIDTH * done / total);
            line = String.format("[%s%s] %3d%% %d/%d  %.1f s", "#".repeat(filled), ".".repeat(WIDTH - filled),
                    Math.min(100, 100L * done / total), done, total, seconds);
        } else {
            line = String.format("[running] %.1f s", seconds);
        }
        err.print("\r" + line);
        err.flush();
        drawn = true;
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (drawn) {
                err.print("\r" + " ".repeat(WIDTH + 40) + "\r"); // erased: the answer starts on a clean line
                err.flush();
            }
        }
    }
}
