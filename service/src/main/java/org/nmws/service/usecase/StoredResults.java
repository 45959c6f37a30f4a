package org.nmws.service.usecase;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.PageKey;
import org.nmws.service.archive.Series;
import org.nmws.service.archive.SeriesQuery;
import org.nmws.service.observation.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stored results, series and keys, for every dialect (NMWG's SetupData, MetadataKey and
 * DataInfo requests, GGF v1's stored answers): the archive's queries with the bounds an
 * answer may hold, raw frames read one observation at a time against the answer's budget, and
 * an archive that cannot answer told apart from one that found nothing. Reading stored results
 * needs no role beyond the transport's read role, so no caller is asked for.
 */
public final class StoredResults {
    private static final Logger log = LoggerFactory.getLogger(StoredResults.class);
    /** Observations one query answers with, when not consolidated. */
    public static final int MAX_RESULTS = 1000;
    /** Consolidation reads summaries only (no frames), so it may read many more. */
    public static final int MAX_CONSOLIDATED = 100_000;
    /** Series one listing answers with. */
    public static final int MAX_SERIES = 1000;

    private final Archive archive;

    public StoredResults(Archive archive) {
        this.archive = archive;
    }

    /** The archive could not answer (its database down, a query it failed): not "nothing found". */
    public static final class Unavailable extends RuntimeException {
        Unavailable(RuntimeException cause) {
            super("the archive could not answer: " + cause.getMessage(), cause);
        }
    }

    /** What each observation's frames cost an answer; refuses one past its budget. */
    @FunctionalInterface
    public interface FrameBudget<E extends Exception> {
        void take(Observation o) throws E;
    }

    /**
     * What a query found, oldest first, and where the rest starts when the query's limit cut it
     * (null when the answer is whole): no answer is ever cut without saying so.
     */
    public record Found(List<Observation> results, PageKey next) {
        public boolean cut() {
            return next != null;
        }
    }

    /**
     * The observations a query finds, oldest first: the newest {@code q.limit()}, and the key
     * of the page before them when there are more. With frames, each is read whole one at a
     * time and charged to the budget before the next is read, so a request for more than an
     * answer may hold is refused before it is all in memory.
     */
    public <E extends Exception> Found find(ObservationQuery q, FrameBudget<E> budget) throws E {
        // one more than the limit tells a whole answer from a cut one without a count query
        List<Observation> summaries = guarded(() -> archive.find((q.withFrames() ? q.summariesOnly() : q).oneMore()));
        PageKey next = null;
        if (summaries.size() > q.limit()) {
            summaries = summaries.subList(summaries.size() - q.limit(), summaries.size()); // newest first: drop the oldest
            next = PageKey.of(summaries.get(0));
        }
        if (!q.withFrames()) {
            return new Found(summaries, next);
        }
        List<Observation> full = new ArrayList<>(summaries.size());
        for (Observation s : summaries) {
            Observation o = guarded(() -> archive.findById(s.id(), true)).orElse(s); // purged meanwhile: its summary
            budget.take(o);
            full.add(o);
        }
        return new Found(full, next);
    }

    /** One observation by the key an earlier answer gave it. */
    public Optional<Observation> byId(long id, boolean frames) {
        return guarded(() -> archive.findById(id, frames));
    }

    /** The id of the observation kept under a result key (a held result's, once written), if any. */
    public Optional<Long> idOf(java.util.UUID key) {
        return guarded(() -> archive.idOf(key));
    }

    /** The series (same point, test, path and parameters) a query matches. */
    public List<Series> series(SeriesQuery q) {
        return guarded(() -> archive.series(q));
    }

    /** Observations grouped by series (same test, path and parameters), in the order found. */
    public static List<List<Observation>> bySeries(List<Observation> found) {
        Map<List<Object>, List<Observation>> series = new LinkedHashMap<>();
        for (Observation o : found) {
            series.computeIfAbsent(List.of(o.test(), o.subject(), o.parameters()), k -> new ArrayList<>()).add(o);
        }
        return new ArrayList<>(series.values());
    }

    private static <T> T guarded(java.util.function.Supplier<T> query) {
        try {
            return query.get();
        } catch (IllegalArgumentException e) {
            throw e; // the query's own refusal (a bad parameter): the client's
        } catch (RuntimeException e) {
            log.error("archive query failed", e);
            throw new Unavailable(e);
        }
    }
}
