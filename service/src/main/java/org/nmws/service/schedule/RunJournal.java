package org.nmws.service.schedule;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scheduler's records that the database could not take (its claims and ends of runs
 * started from memory while it was down), kept on disk until it does: a point killed meanwhile
 * writes them at its next start, so a run whose result the spool kept is not left without its
 * record (issue 21). One file per record, numbered in the order written; each
 * is written beside its name, forced and renamed, as the result spool does, so a file under its
 * name is whole and a crash mid-write leaves only a temporary one, removed at the next start.
 */
final class RunJournal {
    private static final String SUFFIX = ".run";
    private static final String TEMP_PREFIX = ".writing-";
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /**
     * One record, as the store's call it stands for.
     *
     * @param op claimLate, finish, finishHeld or nonStarter
     */
    record Entry(String op, long runId, long atMs, String status, String reason, String key, Long observationId) {
        static Entry claimLate(long runId, Instant at, UUID key) {
            return new Entry("claimLate", runId, at.toEpochMilli(), null, null, key.toString(), null);
        }

        static Entry finish(long runId, String status, Instant at, String reason, Long observationId) {
            return new Entry("finish", runId, at.toEpochMilli(), status, reason, null, observationId);
        }

        static Entry finishHeld(long runId, Instant at, String reason) {
            return new Entry("finishHeld", runId, at.toEpochMilli(), null, reason, null, null);
        }

        static Entry nonStarter(long runId, String reason) {
            return new Entry("nonStarter", runId, 0, null, reason, null, null);
        }

        /** Writes it to the store; each call is safe to repeat (a crash between it and the file's removal). */
        void apply(ScheduleStore store) {
            Instant at = Instant.ofEpochMilli(atMs);
            switch (op) {
                case "claimLate" -> store.claimLate(runId, at, UUID.fromString(key));
                case "finish" -> store.finish(runId, status, at, reason, observationId);
                case "finishHeld" -> store.finishHeld(runId, at, reason);
                case "nonStarter" -> store.nonStarter(runId, reason);
                default -> throw new IllegalStateException("unknown run record " + op);
            }
        }
    }

    /** A record and the file that keeps it. */
    record Kept(Entry entry, Path file) {
    }

    private final Path dir;
    private final AtomicLong seq = new AtomicLong();

    RunJournal(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, TEMP_PREFIX + "*")) {
                for (Path f : files) {
                    Files.deleteIfExists(f); // never renamed: its record was never said to be kept
                }
            }
            // numbered on from the records a previous run left: the order holds across restarts
            // and clock steps (a name from the wall clock would sort a step's records backwards)
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
                for (Path f : files) {
                    String n = f.getFileName().toString();
                    try {
                        seq.accumulateAndGet(Long.parseLong(n.substring(0, n.length() - SUFFIX.length())), Math::max);
                    } catch (NumberFormatException e) {
                        // not one of ours; load() sets it aside
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("scheduler journal " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Keeps a record on disk (forced) before the scheduler goes on; returns its file. */
    Path append(Entry e) {
        String name = String.format("%020d%s", seq.incrementAndGet(), SUFFIX);
        Path temp = dir.resolve(TEMP_PREFIX + name);
        try {
            byte[] bytes = JSON.writeValueAsBytes(e);
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Path file = dir.resolve(name);
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true); // the rename itself survives a power loss
            }
            return file;
        } catch (IOException ex) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // the next start removes it
            }
            throw new UncheckedIOException("scheduler journal: " + ex.getMessage(), ex);
        }
    }

    /** Forgets a record the store has taken. */
    void remove(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("scheduler journal: " + e.getMessage(), e);
        }
    }

    /** The records a previous run of the point left, oldest first. An unreadable one is moved aside and logged. */
    List<Kept> load() {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            ds.forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException("scheduler journal " + dir + ": " + e.getMessage(), e);
        }
        files.sort(null);
        List<Kept> out = new ArrayList<>(files.size());
        for (Path f : files) {
            try {
                out.add(new Kept(JSON.readValue(f.toFile(), Entry.class), f));
            } catch (IOException e) {
                org.slf4j.LoggerFactory.getLogger(RunJournal.class).error("scheduler journal: {} is unreadable, moved aside "
                        + "as .unreadable: {}", f, e.toString());
                try {
                    Files.move(f, f.resolveSibling(f.getFileName() + ".unreadable"), StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException ignored) {
                    // left where it is: read again at the next start
                }
            }
        }
        return out;
    }
}
