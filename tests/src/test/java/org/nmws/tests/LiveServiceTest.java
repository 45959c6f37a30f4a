package org.nmws.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Tests against one real service (random port, SQLite in a temporary directory) and one
 * real responder process, started once per class and stopped after it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LiveServiceTest {
    Path dataDir;
    Responder responder;
    Service service;

    @BeforeAll
    void start() throws Exception {
        // Not @TempDir: a PER_CLASS field is injected only after @BeforeAll has run.
        dataDir = Files.createTempDirectory("nmws-" + getClass().getSimpleName());
        responder = Responder.start("127.0.0.1", responderOptions());
        service = Service.start(dataDir, "--nmws.responder-port=" + responder.port);
    }

    /** Options of the class's responder (--sessions N, ...); none by default. */
    java.util.List<String> responderOptions() {
        return java.util.List.of();
    }

    @AfterAll
    void stop() throws Exception {
        if (service != null) {
            service.close();
        }
        if (responder != null) {
            responder.close();
        }
    }
}
