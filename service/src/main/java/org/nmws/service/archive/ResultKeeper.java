package org.nmws.service.archive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.nmws.service.observation.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.TransactionException;

/**
 * Keeps every measured result in the archive exactly once, also when the archive is down: a
 * result the archive cannot take now (its database stopped or unreachable, its disk full) is
 * held in a {@link ResultSpool} on this point's disk and written by a drain thread when the
 * archive takes writes again, under the key it was measured with, so that a retry after a
 * crash between the write and the spool file's removal finds the row and writes nothing.
 * While results are held, new ones join them (in order, and without each waiting for a
 * database that is down). Past the spool's bounds a result is refused with a clear message and
 * counted; no test is started while the spool is full.
 */
public final class ResultKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ResultKeeper.class);

    /**
     * A result as kept.
     *
     * @param observation with its archive id, or id 0 when held
     * @param held true when the archive could not take it now: it is on this point's disk and
     *        is written when the archive returns
     * @param key the key it is (or will be) kept under
     */
    public record Kept(Observation observation, boolean held, UUID key) {
    }

    /** Told when a held result reached the archive; may be told again for the same key after a crash. */
    public interface Listener {
        void written(UUID key, long observationId);
    }

    /** The result was not kept: the archive is down and it could not be held either. */
    public static final class NotKept extends Exception {
        NotKept(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Archive archive;
    private final ResultSpool spool;
    private volatile Outbox outbox;
    private final Duration drainInterval;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong heldTotal = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong setAside = new AtomicLong();
    private final Object draining = new Object();
    private volatile String lastFailure;
    private ScheduledExecutorService drainer;

    /** Without a spool: a failed save fails the test, as before results could be held (unit tests). */
    public static ResultKeeper direct(Archive archive) {
        return new ResultKeeper(archive, null, Duration.ofSeconds(1));
    }

    /** Holds in dir, within the bounds; {@link #start()} starts the drain thread. */
    public static ResultKeeper spooling(Archive archive, Path dir, int maxEntries, long maxBytes, Duration drainInterval) {
        return new ResultKeeper(archive, new ResultSpool(dir, maxEntries, maxBytes), drainInterval);
    }

    private ResultKeeper(Archive archive, ResultSpool spool, Duration drainInterval) {
        this.archive = archive;
        this.spool = spool;
        this.drainInterval = drainInterval;
    }

    /** Results meant for archives are queued in this outbox, in the transaction that keeps them. */
    public void setOutbox(Outbox outbox) {
        this.outbox = outbox;
    }

    public void addListener(Listener l) {
        listeners.add(l);
    }

    /** Drains what an earlier run left held (once, now), then every drain interval on a named thread. */
    public synchronized void start() {
        if (spool == null || drainer != null) {
            return;
        }
        if (spool.entries() > 0) {
            log.info("{} results held before this start ({} bytes in {}); writing them to the archive", spool.entries(),
                    spool.bytes(), spool.dir());
        }
        drainer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nmws-spool-drain");
            t.setDaemon(true);
            return t;
        });
        drainer.scheduleWithFixedDelay(this::drainSafely, 0, drainInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (drainer != null) {
            drainer.shutdownNow();
            try {
                drainer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            drainer = null;
        }
    }

    /**
     * Refuses to start a test whose result could not be kept: the archive is down and the
     * spool is at its bound.
     */
    public void checkRoom() throws NotKept {
        checkRoom(List.of());
    }

    /**
     * As {@link #checkRoom()}, and refuses a test whose result is meant for an archive whose
     * outbox backlog is at its bound.
     */
    public void checkRoom(List<ArchiveTarget> archives) throws NotKept {
        Outbox o = outbox;
        if (!archives.isEmpty() && o != null) {
            try {
                o.checkRoom(archives);
            } catch (Outbox.Full e) {
                refused.incrementAndGet();
                throw new NotKept(e.getMessage(), e);
            }
        }
        if (spool != null && spool.isFull()) {
            refused.incrementAndGet();
            throw new NotKept("the archive cannot keep results now (" + lastFailure + ") and the spool of held results is"
                    + " full (" + spool.entries() + " results, " + spool.bytes() + " bytes); no test starts until they"
                    + " are written", null);
        }
    }

    /**
     * Keeps a result under its key: in the archive now, or held on disk and written later.
     *
     * @throws NotKept when the archive cannot take it and the spool cannot hold it (full,
     *         or its disk refuses): the result is lost and the caller is told so
     */
    public Kept keep(Observation o, UUID key) throws NotKept {
        return keep(o, key, List.of());
    }

    /**
     * Keeps a result under its key and queues it for each archive it is meant for, in one
     * transaction: in the archive now, or held on disk with its archives and written (and
     * queued) later.
     */
    public Kept keep(Observation o, UUID key, List<ArchiveTarget> archives) throws NotKept {
        if (!archives.isEmpty() && outbox == null) {
            throw new IllegalStateException("results meant for archives need the outbox");
        }
        if (spool == null) {
            return new Kept(save(o, key, archives), false, key);
        }
        String cause;
        if (spool.entries() > 0) {
            cause = "results held before it are not yet written (" + lastFailure + ")";
        } else {
            try {
                return new Kept(save(o, key, archives), false, key);
            } catch (DataAccessException | TransactionException e) {
                cause = describe(e);
                lastFailure = cause;
                log.warn("the archive cannot keep results now, holding them in {}: {}", spool.dir(), cause);
            }
        }
        try {
            spool.hold(key, o, cause, archives);
        } catch (ResultSpool.FullException e) {
            refused.incrementAndGet();
            log.error("result {} of {} to {} not kept: {}; {}", key, o.test().key(), o.subject().dst().host(), cause,
                    e.getMessage());
            throw new NotKept("the archive cannot keep results now (" + cause + ") and " + e.getMessage()
                    + ": this result was not kept", e);
        } catch (UncheckedIOException e) {
            refused.incrementAndGet();
            log.error("result {} of {} to {} not kept: {}; {}", key, o.test().key(), o.subject().dst().host(), cause,
                    e.getMessage());
            throw new NotKept("the archive cannot keep results now (" + cause + ") and " + e.getMessage()
                    + ": this result was not kept", e);
        }
        heldTotal.incrementAndGet();
        return new Kept(o.withId(0), true, key);
    }

    /**
     * The result and its outbox rows in one transaction: either both are kept or neither, so a
     * kept result always reaches its archives. A second save under a key finds the first row and
     * adds no second outbox row.
     */
    private Observation save(Observation o, UUID key, List<ArchiveTarget> archives) {
        if (archives.isEmpty()) {
            return archive.save(o, key);
        }
        Outbox box = outbox;
        if (box == null) { // a held result drained before the outbox was handed over at start: the next pass writes it
            throw new IllegalStateException("the outbox is not ready yet");
        }
        box.prepare(archives);
        Observation saved = archive.atomically(() -> {
            Observation s = archive.save(o, key);
            box.add(s.id(), key, archives);
            return s;
        });
        box.added(archives);
        return saved;
    }

    private void drainSafely() {
        try {
            drain();
        } catch (RuntimeException e) {
            log.warn("writing held results failed: {}", e.toString());
        }
    }

    /**
     * One pass over the held results, oldest first, until the archive refuses one (it is still
     * down: the next pass tries again). Each is written under its key, its listeners are told,
     * then its file goes: a crash between any two steps repeats them, and the key makes the
     * repeated write a no-op. Returns how many were written.
     */
    public int drain() {
        if (spool == null) {
            return 0;
        }
        synchronized (draining) {
            int n = 0;
            for (Path file : spool.files()) {
                ResultSpool.Entry e;
                try {
                    e = spool.read(file);
                } catch (IOException | RuntimeException bad) {
                    log.error("held result {} cannot be read, set aside under failed/: {}", file, bad.toString());
                    setAsideQuietly(file);
                    continue;
                }
                Observation saved;
                try {
                    saved = save(e.observation(), e.key(), e.archives());
                } catch (DataIntegrityViolationException bad) {
                    log.error("held result {} is refused by the archive for good, set aside under failed/: {}", file,
                            bad.getMostSpecificCause().toString());
                    setAsideQuietly(file);
                    continue;
                } catch (RuntimeException down) {
                    lastFailure = describe(down);
                    return n; // still down: the rest wait
                }
                for (Listener l : listeners) {
                    l.written(e.key(), saved.id()); // throws: the file stays, and the next pass tells again
                }
                try {
                    spool.remove(e);
                } catch (IOException io) {
                    throw new UncheckedIOException("cannot remove written result " + file, io);
                }
                written.incrementAndGet();
                n++;
            }
            if (n > 0 && spool.entries() == 0) {
                log.info("every held result is in the archive ({} written since start)", written.get());
            }
            return n;
        }
    }

    private void setAsideQuietly(Path file) {
        setAside.incrementAndGet();
        try {
            spool.setAside(file);
        } catch (IOException io) {
            log.error("cannot set aside {}: {}", file, io.toString());
        }
    }

    private static String describe(RuntimeException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return e.getClass().getSimpleName() + ": " + (root.getMessage() == null ? root.toString() : root.getMessage());
    }

    /** Results held now. */
    public int held() {
        return spool == null ? 0 : spool.entries();
    }

    /** Bytes held now. */
    public long heldBytes() {
        return spool == null ? 0 : spool.bytes();
    }

    /** Results held since start. */
    public long heldTotal() {
        return heldTotal.get();
    }

    /** Held results written to the archive since start. */
    public long written() {
        return written.get();
    }

    /** Results (and tests) refused since start because nothing could keep them. */
    public long refused() {
        return refused.get();
    }

    /** Held files set aside (unreadable, or refused by the archive for good) since start. */
    public long setAside() {
        return setAside.get();
    }
}
