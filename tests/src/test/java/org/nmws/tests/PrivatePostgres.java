package org.nmws.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster of the test's own (scripts/test-postgres.sh), which the test may stop
 * and start again on the same port, as an operator or a crash would, under a running service.
 * Never the shared test server of NMWS_TEST_PG_URL.
 */
final class PrivatePostgres implements AutoCloseable {
    private static final Path SCRIPT = Path.of(System.getProperty("nmws.repo", ".."), "scripts", "test-postgres.sh");

    final Path dir;
    final String url;

    private PrivatePostgres(Path dir, String url) {
        this.dir = dir;
        this.url = url;
    }

    /** A new cluster in a new directory under /tmp (postgres must reach it when the test runs as root). */
    static PrivatePostgres start() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "nmws-pg-fault-");
        return new PrivatePostgres(dir, script("start", dir));
    }

    /** pg_ctl stop -m fast: sessions are ended, the server is gone until {@link #startAgain}. */
    void stop() throws IOException, InterruptedException {
        script("stop", dir);
    }

    /** The same cluster on the same port. */
    void startAgain() throws IOException, InterruptedException {
        String again = script("start", dir);
        if (!again.equals(url)) {
            throw new IllegalStateException("restarted on another URL: " + again + " (was " + url + ")");
        }
    }

    private static String script(String cmd, Path dir) throws IOException, InterruptedException {
        Path err = Files.createTempFile("nmws-pg", ".log");
        Process p = new ProcessBuilder("bash", SCRIPT.toAbsolutePath().toString(), cmd, dir.toString())
                .redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(90, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("test-postgres.sh " + cmd + " " + dir + " failed: " + Files.readString(err));
        }
        Files.deleteIfExists(err);
        return out;
    }

    @Override
    public void close() throws Exception {
        script("stop", dir);
        new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor(30, TimeUnit.SECONDS);
    }
}
