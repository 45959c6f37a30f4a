package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.ResultKeeper;
import org.nmws.service.observation.Characteristic.ProbeTest;

/**
 * Issue 21, faults: the archive's disk full. The SQLite archive lives on a small tmpfs of its
 * own and the spool (nmws.archive.spool.dir) on another. With the archive's disk filled, tests
 * are answered and their results held; with the spool's disk filled too, a test is answered
 * with a clear error.ma.storage saying its result was not kept; when space returns, what was
 * held is written, the next test is kept at once, and SQLite's integrity check passes. Needs
 * root (mount); skipped otherwise.
 */
class DiskFullFaultTest {

    @Test
    void withTheArchivesDiskFullResultsAreHeldOrClearlyRefusedAndAllIsWellWhenSpaceReturns() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        Path base = Files.createTempDirectory("nmws-disk-full");
        Path data = Files.createDirectories(base.resolve("data"));
        Path spool = Files.createDirectories(base.resolve("spool"));
        mount(data, "24m");
        try {
            mount(spool, "1m");
            try (Responder responder = Responder.start("127.0.0.1");
                 Service service = Service.start(data, "--nmws.responder-port=" + responder.port,
                         "--nmws.measurement-point=point-full", "--nmws.archive.spool.dir=" + spool,
                         "--nmws.archive.spool.drain-interval=PT0.5S")) {
                ResultKeeper keeper = service.context.getBean(ResultKeeper.class);
                Archive archive = service.context.getBean(Archive.class);
                ObservationQuery all = new ObservationQuery(ProbeTest.ROUND_TRIP, "127.0.0.1", null, Instant.EPOCH,
                        Instant.now().plusSeconds(3600), false, 1000);
                assertFalse(test(service).contains("error."));
                assertEquals(1, archive.find(all).size());

                long filled = fill(data.resolve("filler"));
                int held = 0;
                for (int i = 0; i < 3; i++) {
                    String answer = test(service);
                    assertTrue(answer.contains("success.ma.pending") && !answer.contains("error."), answer);
                    held++;
                }
                assertEquals(held, keeper.held());

                fill(spool.resolve("filler"));
                String refused = test(service);
                assertTrue(refused.contains("error.ma.storage") && refused.contains("this result was not kept"), refused);
                assertFalse(refused.contains("\tat "), refused);
                assertEquals(held, keeper.held(), "the held results are still held");

                Files.delete(spool.resolve("filler"));
                Files.delete(data.resolve("filler"));
                long back = System.nanoTime();
                ArchiveDownFaultTest.waitFor("the held results written", Duration.ofSeconds(30), () -> keeper.held() == 0);
                double drained = (System.nanoTime() - back) / 1e9;
                String after = test(service);
                assertFalse(after.contains("error.") || after.contains("success.ma.pending"), after);
                assertEquals(1 + held + 1, archive.find(all).size(), "the first, the held ones and the last; the refused one not");
                assertEquals("ok", integrity(data.resolve("nmws.db")));
                System.out.printf("disk-full figures: archive disk filled (%d MB of filler); %d results held on the spool's "
                                + "disk, 1 refused with error.ma.storage when that was full too; written %.1f s after space "
                                + "returned; SQLite integrity ok; lost 0 of those acknowledged, twice 0%n", filled >> 20, held,
                        drained);
            } finally {
                umount(spool);
            }
        } finally {
            umount(data);
            new ProcessBuilder("rm", "-rf", base.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String test(Service service) throws Exception {
        String body = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 10, ""), "application/xml", null)
                .body();
        Service.validatedMessage(body);
        return body;
    }

    /** Writes until the file system says it is full; returns the bytes written. */
    private static long fill(Path file) throws IOException {
        byte[] block = new byte[64 * 1024];
        long n = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(block);
                n += block.length;
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
        return n;
    }

    private static String integrity(Path db) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void mount(Path dir, String size) throws Exception {
        run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
    }

    private static void umount(Path dir) throws Exception {
        run("umount", "-l", dir.toString());
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
