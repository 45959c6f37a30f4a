package org.nmws.service.archive;

import java.util.List;
import java.util.Optional;
import org.nmws.service.measure.Observation;

/** Where observations are kept. Every implementation passes the same contract tests. */
public interface Archive {

    /**
     * Keeps an observation with its frames in one transaction; returns it with its id.
     * When this returns, the result is durable.
     */
    Observation save(Observation observation);

    /** Observations matching the query, oldest first. */
    List<Observation> find(ObservationQuery query);

    Optional<Observation> findById(long id, boolean withFrames);
}
