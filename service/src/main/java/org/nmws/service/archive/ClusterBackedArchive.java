package org.nmws.service.archive;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.nmws.service.observation.Observation;

/**
 * This point's archive, with an OpenSearch cluster read for the paths it holds no results of
 * (nmws.archive.opensearch-url): a stored-results query (NMWG SetupData, GGF v1, the JSON API,
 * esmond, cost) about a path another point or a perfSONAR host measured into the shared cluster
 * is answered from there. Everything else is the local archive's: what this point measured,
 * raw frames, series, consolidation, retention. A cluster that cannot answer makes such a query
 * fail (the dialect says the archive could not answer), never look empty.
 */
public final class ClusterBackedArchive implements Archive {
    private final Archive local;
    private final OpenSearchResults cluster;

    public ClusterBackedArchive(Archive local, OpenSearchResults cluster) {
        this.local = local;
        this.cluster = cluster;
    }

    /**
     * This archive's answer when it holds any result of the path (at any time, any page); the
     * cluster's when it holds none: a window or page past this point's results is not filled
     * from the cluster, so an answer never mixes the two.
     */
    @Override
    public List<Observation> find(ObservationQuery query) {
        List<Observation> mine = local.find(query);
        if (!mine.isEmpty() || holds(query)) {
            return mine;
        }
        return cluster.find(query);
    }

    private boolean holds(ObservationQuery q) {
        return !local.find(new ObservationQuery(q.test(), q.dst(), q.src(), null, null, false, 1, null, q.point())).isEmpty();
    }

    @Override
    public Observation save(Observation observation) {
        return local.save(observation);
    }

    @Override
    public Observation save(Observation observation, UUID key) {
        return local.save(observation, key);
    }

    @Override
    public Optional<Long> idOf(UUID key) {
        return local.idOf(key);
    }

    @Override
    public Optional<Observation> findById(long id, boolean withFrames) {
        return local.findById(id, withFrames);
    }

    @Override
    public <T> T atomically(Supplier<T> work) {
        return local.atomically(work);
    }

    @Override
    public List<Series> series(SeriesQuery query) {
        return local.series(query);
    }

    @Override
    public List<TimeBucket> aggregate(AggregateQuery query) {
        return local.aggregate(query);
    }

    @Override
    public Purged purge(Instant rawBefore, Instant summaryBefore) {
        return local.purge(rawBefore, summaryBefore);
    }

    @Override
    public void maintain(Instant now) {
        local.maintain(now);
    }

    @Override
    public void forEach(Instant from, Instant to, boolean withFrames, Consumer<Observation> sink) {
        local.forEach(from, to, withFrames, sink);
    }

    @Override
    public String toString() {
        return "this point's archive, and " + cluster + " for the paths it holds none of";
    }
}
