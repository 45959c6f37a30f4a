package org.nmws.service.archive;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.nmws.service.observation.Observation;

/** Where observations are kept. Every implementation passes the same contract tests. */
public interface Archive {

    /**
     * Keeps an observation with its frames in one transaction; returns it with its id.
     * When this returns, the result is durable.
     */
    Observation save(Observation observation);

    /**
     * As {@link #save(Observation)}, exactly once per key: when an observation was kept under
     * this key already, nothing is written and that one is returned (with its id). A result
     * held while the archive was down is written under the key it was measured with, so a
     * retry after a crash never keeps it twice.
     */
    Observation save(Observation observation, UUID key);

    /** The id of the observation kept under a key, if one was. */
    Optional<Long> idOf(UUID key);

    /** Observations matching the query, oldest first. */
    List<Observation> find(ObservationQuery query);

    Optional<Observation> findById(long id, boolean withFrames);

    /** Runs work in one transaction: every save inside it lands, or none does. */
    <T> T atomically(java.util.function.Supplier<T> work);

    /** The distinct series (measurement point, test, subject, parameters) matching the query, oldest first. */
    List<Series> series(SeriesQuery query);

    /**
     * Query-time consolidation: one figure of one path's observations in [from, to), grouped
     * into buckets of the query's resolution aligned to the epoch, each bucket carrying its
     * count, average, minimum, maximum and median. The figure is a summary datum (one value
     * per observation) or the raw per-frame values (one value per kept frame, in ns).
     * Buckets without values are left out; the list is in time order. This is what an NMWG
     * select with consolidationFunction and resolution reads.
     */
    List<TimeBucket> aggregate(AggregateQuery query);

    /**
     * Retention: removes the raw frames of observations that started before {@code rawBefore}
     * (their summaries stay) and whole observations that started before {@code summaryBefore}.
     * Either bound may be null to keep that kind. Runs in short transactions so writers are
     * never blocked for long.
     */
    Purged purge(Instant rawBefore, Instant summaryBefore);

    /**
     * Keeps the store's structure ahead of the clock (PostgreSQL: the time partitions around
     * {@code now}); the retention job calls it before each pass. Nothing to do by default.
     */
    default void maintain(Instant now) {
    }

    /**
     * Every observation that started in [from, to), any test, path or measurement point, in
     * id order, handed to {@code sink} one at a time (for export; never all in memory).
     */
    void forEach(Instant from, Instant to, boolean withFrames, Consumer<Observation> sink);
}
