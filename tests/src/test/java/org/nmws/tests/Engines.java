package org.nmws.tests;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** What the engines' test-support classes share: child JVMs on the test's classpath, waiting, logs. */
final class Engines {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private Engines() {
    }

    /**
     * n different loopback ports that were free: held open together while chosen, and never one
     * handed out before in this JVM, so two engines started at once never get the same port
     * (ports asked one after another may be).
     */
    static synchronized int[] freePorts(int n) throws IOException {
        List<java.net.ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; ) {
                java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                held.add(s);
                if (GIVEN.add(s.getLocalPort())) { // never one an engine started in parallel was given
                    ports[i++] = s.getLocalPort();
                }
            }
            return ports;
        } finally {
            for (java.net.ServerSocket s : held) {
                s.close();
            }
        }
    }

    private static final java.util.Set<Integer> GIVEN = new java.util.HashSet<>();

    /** The test JVM's classpath as surefire built it (not its booter jar). */
    static String classpath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /** A JVM running mainClass on the test classpath, its output in log. */
    static Process javaProcess(String mainClass, List<String> jvmArgs, List<String> args, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath());
        cmd.add(mainClass);
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    static Process process(List<String> cmd, Map<String, String> env, Path log) throws IOException {
        ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        b.environment().putAll(env);
        return b.start();
    }

    /** Polls until the condition holds; fails with what was awaited and the engine's log tail when it does not. */
    static void await(String what, Duration bound, Process p, Path log, BooleanSupplier ready) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            if (p != null && !p.isAlive()) {
                throw new IllegalStateException(what + ": the process exited with " + p.exitValue() + "\n" + tail(log));
            }
            try {
                if (ready.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not up yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(what + ": not within " + bound.toSeconds() + " s\n" + tail(log));
    }

    /** SIGTERM, then SIGKILL after the bound. */
    static void stop(Process p, Duration bound) throws InterruptedException {
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        if (!p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    static HttpResponse<String> http(String method, String url, String body, String contentType) throws IOException,
            InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }
}
