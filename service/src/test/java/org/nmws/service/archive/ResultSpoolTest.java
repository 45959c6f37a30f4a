package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The drain lists only results that are held: one still being written is not yet. */
class ResultSpoolTest {
    @TempDir
    Path dir;

    @Test
    void aResultBeingWrittenIsNotListedForTheDrain() throws Exception {
        ResultSpool spool = new ResultSpool(dir, 10, 1 << 20);
        // what hold() writes before its rename: the glob "*.held" matched it (review finding)
        Files.writeString(dir.resolve(".writing-1-00000000-0000-0000-0000-000000000000.held"), "{\"partial\":");
        Files.writeString(dir.resolve("2-00000000-0000-0000-0000-000000000001.held"), "{}");
        List<Path> listed = spool.files();
        assertEquals(List.of(dir.resolve("2-00000000-0000-0000-0000-000000000001.held")), listed);
    }
}
