package org.nmws.service.grid;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.nmws.service.mesh.Mesh;

/**
 * Reads other points' own parts of the grid (GET /api/grid?scope=local), all at once and
 * bounded in time: a point that refuses, times out, trickles or answers too much is reported
 * with why, never waited for past the timeout. Each point is asked with the API key the mesh
 * file gives it.
 */
public final class RemoteGrids implements AutoCloseable {
    /** One point's answer: its grid, or why there is none. */
    public record Answer(Mesh.Point point, JsonNode body, String error, long millis) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Duration timeout;
    private final int maxAnswerBytes;
    private final HttpClient http;
    private final ExecutorService readers;

    /**
     * @param timeout how long a grid waits for the slowest point
     * @param maxAnswerBytes the most of one point's answer read
     */
    public RemoteGrids(Duration timeout, int maxAnswerBytes) {
        if (timeout.toMillis() < 100 || timeout.toSeconds() > 60) {
            throw new IllegalArgumentException("nmws.grid.remote-timeout must be 100 ms..60 s, was " + timeout);
        }
        this.timeout = timeout;
        this.maxAnswerBytes = maxAnswerBytes;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
        AtomicInteger n = new AtomicInteger();
        this.readers = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "grid-reader-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Every point's answer, in the order given, within the timeout. */
    public List<Answer> read(List<Mesh.Point> points) {
        if (points.isEmpty()) {
            return List.of();
        }
        long started = System.nanoTime();
        Map<Mesh.Point, InputStream> open = new ConcurrentHashMap<>();
        List<CompletableFuture<Answer>> asked = new ArrayList<>();
        for (Mesh.Point p : points) {
            asked.add(CompletableFuture.supplyAsync(() -> ask(p, open, started), readers));
        }
        try {
            CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // those not done are reported below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Answer> out = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            Mesh.Point p = points.get(i);
            CompletableFuture<Answer> f = asked.get(i);
            if (f.isDone() && !f.isCompletedExceptionally()) {
                out.add(f.join());
            } else {
                // Closing its answer's stream ends a read still trickling in.
                InputStream in = open.remove(p);
                if (in != null) {
                    try {
                        in.close();
                    } catch (IOException ignored) {
                        // closed already
                    }
                }
                f.cancel(true);
                out.add(new Answer(p, null, "did not answer within " + timeout.toMillis() + " ms", elapsed(started)));
            }
        }
        return out;
    }

    private Answer ask(Mesh.Point p, Map<Mesh.Point, InputStream> open, long started) {
        URI uri = URI.create(p.url().replaceAll("/+$", "") + "/api/grid?scope=local");
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json").GET();
        if (p.apiKey() != null && !p.apiKey().isBlank()) {
            b.header("X-Api-Key", p.apiKey());
        }
        try {
            HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                open.put(p, in);
                if (r.statusCode() != 200) {
                    return new Answer(p, null, "answered HTTP " + r.statusCode() + (r.statusCode() == 401 || r.statusCode() == 403
                            ? ": it refused this point's credentials (give the mesh file its apiKey, with the read role there)"
                            : r.statusCode() == 404 ? ": it serves no grid (not nmws, or an older one)" : ""), elapsed(started));
                }
                byte[] body = in.readNBytes(maxAnswerBytes + 1);
                if (body.length > maxAnswerBytes) {
                    return new Answer(p, null, "answered more than " + maxAnswerBytes + " bytes", elapsed(started));
                }
                JsonNode grid = JSON.readTree(body);
                if (grid == null || !grid.path("cells").isArray()) {
                    return new Answer(p, null, "answered what is not a grid", elapsed(started));
                }
                return new Answer(p, grid, null, elapsed(started));
            } finally {
                open.remove(p);
            }
        } catch (HttpTimeoutException e) {
            return new Answer(p, null, "did not answer within " + timeout.toMillis() + " ms", elapsed(started));
        } catch (ConnectException e) {
            return new Answer(p, null, "cannot be reached at " + p.url() + ": connection refused", elapsed(started));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return new Answer(p, null, "answered what is not JSON: " + e.getOriginalMessage(), elapsed(started));
        } catch (IOException e) {
            return new Answer(p, null, "cannot be reached at " + p.url() + ": " + e, elapsed(started));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(p, null, "not asked: this point is stopping", elapsed(started));
        }
    }

    private static long elapsed(long started) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    @Override
    public void close() {
        readers.shutdownNow();
    }
}
