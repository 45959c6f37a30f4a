package org.nmws.service.archive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
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
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.nmws.service.observation.Observation;

/**
 * Results held on the measuring point's disk while the archive cannot keep them: one file
 * per result, named so that the names sort in the order the results were held. A file is
 * written beside its final name, forced to disk and renamed over it, and the directory is
 * forced after: a file under its final name is whole and survives a power loss; a partial one
 * (a crash while writing) keeps its temporary name and is removed at the next start. Bounded
 * in count and bytes; past either bound {@link #hold} refuses. Not thread-safe for the same
 * key; the holder ({@link ResultKeeper}) serialises what needs it.
 */
final class ResultSpool {
    private static final String SUFFIX = ".held";
    private static final String TEMP_PREFIX = ".writing-";

    /** One held result: its key, the observation with its frames, why it was held, and the archives it goes to. */
    record Entry(Path file, UUID key, Observation observation, Instant heldAt, String cause, long bytes,
                 List<ArchiveTarget> archives) {
    }

    /**
     * What a file holds: the observation without frames, and its frames packed as the archive
     * packs them; the archives it is meant for as their specs (none in files held before V10).
     */
    record Stored(UUID key, Instant heldAt, String cause, Observation observation, int frames, List<String> frameChunks,
                  List<com.fasterxml.jackson.databind.JsonNode> archives) {
    }

    /** Past a bound: the result is not held. */
    static final class FullException extends Exception {
        FullException(String message) {
            super(message);
        }
    }

    private final Path dir;
    private final Path failedDir;
    private final int maxEntries;
    private final long maxBytes;
    private final ObjectMapper json;
    private final AtomicLong sequence;
    private int entries;
    private long bytes;

    /**
     * Opens (creating) the spool directory, removes partial files left by a crash and counts
     * what is held.
     */
    ResultSpool(Path dir, int maxEntries, long maxBytes) {
        this.dir = dir;
        this.failedDir = dir.resolve("failed");
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.json = JsonMapper.builder().addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();
        long last = 0;
        try {
            Files.createDirectories(dir);
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path f : files) {
                    String name = f.getFileName().toString();
                    if (name.startsWith(TEMP_PREFIX)) {
                        Files.deleteIfExists(f); // never renamed: its writer never said it was held
                    } else if (name.endsWith(SUFFIX)) {
                        entries++;
                        bytes += Files.size(f);
                        last = Math.max(last, sequenceOf(name));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the spool of held results " + dir, e);
        }
        this.sequence = new AtomicLong(Math.max(last, System.currentTimeMillis() * 1000));
    }

    Path dir() {
        return dir;
    }

    synchronized int entries() {
        return entries;
    }

    synchronized long bytes() {
        return bytes;
    }

    int maxEntries() {
        return maxEntries;
    }

    long maxBytes() {
        return maxBytes;
    }

    synchronized boolean isFull() {
        return entries >= maxEntries || bytes >= maxBytes;
    }

    /**
     * Holds a result durably; when this returns, the file is on disk under its final name.
     *
     * @throws FullException past the count or byte bound (nothing is written)
     * @throws UncheckedIOException when the disk refuses (full, read-only): nothing is held
     */
    void hold(UUID key, Observation o, String cause, List<ArchiveTarget> archives) throws FullException {
        byte[] content = encode(new Stored(key, Instant.now(), cause, o.withFrames(List.of()).withId(0),
                o.frames().size(), chunks(o.frames()),
                archives.stream().map(a -> (com.fasterxml.jackson.databind.JsonNode) a.toJson()).toList()));
        synchronized (this) {
            if (entries + 1 > maxEntries || bytes + content.length > maxBytes) {
                throw new FullException("the spool of held results is full (" + entries + " of " + maxEntries
                        + " results, " + bytes + " of " + maxBytes + " bytes, nmws.archive.spool.max-entries/max-bytes)");
            }
            entries++;
            bytes += content.length;
        }
        String name = String.format("%020d-%s%s", sequence.incrementAndGet(), key, SUFFIX);
        Path temp = dir.resolve(TEMP_PREFIX + name);
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(content);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(temp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
            forceDirectory();
        } catch (IOException e) {
            synchronized (this) {
                entries--;
                bytes -= content.length;
            }
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // the next start removes it
            }
            throw new UncheckedIOException("cannot hold the result in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The files held, oldest first (names only: read each with {@link #read}). */
    List<Path> files() {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                // a result being written (".writing-...held") is not held yet: the glob's * matches
                // the leading dot, and the drain must never take a file hold() has not renamed
                if (!f.getFileName().toString().startsWith(TEMP_PREFIX)) {
                    out.add(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the spool " + dir, e);
        }
        out.sort(null);
        return out;
    }

    /** A held result as it was held. */
    Entry read(Path file) throws IOException {
        byte[] content = Files.readAllBytes(file);
        Stored s = json.readValue(content, Stored.class);
        List<Observation.Frame> frames = new ArrayList<>(s.frames());
        int left = s.frames();
        for (String chunk : s.frameChunks()) {
            int n = Math.min(FrameCodec.CHUNK_FRAMES, left);
            FrameCodec.decode(Base64.getDecoder().decode(chunk), n, frames);
            left -= n;
        }
        List<ArchiveTarget> archives = new ArrayList<>();
        if (s.archives() != null) {
            for (com.fasterxml.jackson.databind.JsonNode a : s.archives()) {
                archives.add(ArchiveTarget.parse(a, null));
            }
        }
        return new Entry(file, s.key(), s.observation().withFrames(frames), s.heldAt(), s.cause(), content.length, archives);
    }

    /** Removes a file once its result is in the archive; forced, so a written result is not written again after a crash. */
    void remove(Entry e) throws IOException {
        if (Files.deleteIfExists(e.file())) {
            forceDirectory();
            synchronized (this) {
                entries--;
                bytes -= e.bytes();
            }
        }
    }

    /**
     * Moves aside a file that cannot be read or that the archive refuses for good, out of the
     * count, so it does not stop the results behind it; an operator finds it under failed/.
     */
    void setAside(Path file) throws IOException {
        long size = Files.size(file);
        Files.createDirectories(failedDir);
        Files.move(file, failedDir.resolve(file.getFileName()), StandardCopyOption.ATOMIC_MOVE);
        forceDirectory();
        synchronized (this) {
            entries--;
            bytes -= size;
        }
    }

    private void forceDirectory() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private byte[] encode(Stored s) {
        try {
            return json.writeValueAsBytes(s);
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode a held result as JSON", e);
        }
    }

    private static List<String> chunks(List<Observation.Frame> frames) {
        if (frames.isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (byte[] c : FrameCodec.chunks(frames)) {
            out.add(Base64.getEncoder().encodeToString(c));
        }
        return out;
    }

    private static long sequenceOf(String name) {
        int dash = name.indexOf('-');
        try {
            return dash > 0 ? Long.parseLong(name.substring(0, dash)) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
