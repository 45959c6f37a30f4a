package org.nmws.service.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler's records kept on disk while the database is down: order, crash leftovers, removal. */
class RunJournalTest {
    @TempDir
    Path dir;

    @Test
    void recordsComeBackInTheOrderWrittenAfterARestart() {
        RunJournal j = new RunJournal(dir);
        UUID key = UUID.randomUUID();
        Instant t = Instant.parse("2026-11-26T10:00:00.123Z");
        j.append(RunJournal.Entry.claimLate(7, t, key));
        j.append(RunJournal.Entry.finishHeld(7, t.plusSeconds(3), "held"));
        j.append(RunJournal.Entry.finish(8, ScheduledRun.DONE, t.plusSeconds(4), null, 42L));
        j.append(RunJournal.Entry.nonStarter(9, "missed"));

        List<RunJournal.Kept> back = new RunJournal(dir).load();
        assertEquals(List.of(RunJournal.Entry.claimLate(7, t, key), RunJournal.Entry.finishHeld(7, t.plusSeconds(3), "held"),
                RunJournal.Entry.finish(8, ScheduledRun.DONE, t.plusSeconds(4), null, 42L), RunJournal.Entry.nonStarter(9, "missed")),
                back.stream().map(RunJournal.Kept::entry).toList());
        j.remove(back.get(0).file());
        assertEquals(3, new RunJournal(dir).load().size(), "a record the store took is gone");
    }

    @Test
    void aRecordHalfWrittenAtACrashIsDroppedAndAnUnreadableOneSetAside() throws Exception {
        Files.writeString(dir.resolve(".writing-00000000000000000001.run"), "{\"op\":\"fin");
        Files.writeString(dir.resolve("00000000000000000002.run"), "not json");
        RunJournal j = new RunJournal(dir);
        j.append(RunJournal.Entry.nonStarter(3, "x"));
        List<RunJournal.Kept> back = j.load();
        assertEquals(1, back.size());
        assertEquals(3, back.get(0).entry().runId());
        try (var files = Files.list(dir)) {
            List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
            assertTrue(names.stream().noneMatch(n -> n.startsWith(".writing-")), names.toString());
            assertTrue(names.contains("00000000000000000002.run.unreadable"), names.toString());
            // numbered on past what was there: sorts after it, whatever the clock says
            assertTrue(names.contains("00000000000000000003.run"), names.toString());
        }
    }
}
