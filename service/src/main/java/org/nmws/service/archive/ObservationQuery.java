package org.nmws.service.archive;

import java.time.Instant;
import java.util.Map;
import org.nmws.service.observation.Characteristic;

/**
 * A query over stored observations: one test kind on a path, in a time window.
 *
 * @param dst the destination as stored name or address
 * @param src the source, or null for any
 * @param from inclusive start, or null for the beginning
 * @param to inclusive end, or null for now
 * @param withFrames whether per-frame records are read too
 * @param limit most observations returned, newest first
 * @param parameters when not null, only observations whose stored parameters are exactly these (one series)
 * @param point when not null, only what this measurement point measured (an archive shared by
 *        several points holds theirs too)
 * @param before when not null, only observations older than this key (the next page of an answer that was cut)
 */
public record ObservationQuery(Characteristic.ProbeTest test, String dst, String src, Instant from, Instant to,
                               boolean withFrames, int limit, Map<String, String> parameters, String point,
                               PageKey before) {
    public ObservationQuery {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        if (dst == null && src == null) {
            throw new IllegalArgumentException("a query names a dst, a src, or both");
        }
    }

    public ObservationQuery(Characteristic.ProbeTest test, String dst, String src, Instant from, Instant to,
                            boolean withFrames, int limit, Map<String, String> parameters, String point) {
        this(test, dst, src, from, to, withFrames, limit, parameters, point, null);
    }

    /** Any point's observations of one series (or of every parameter set when parameters is null). */
    public ObservationQuery(Characteristic.ProbeTest test, String dst, String src, Instant from, Instant to,
                            boolean withFrames, int limit, Map<String, String> parameters) {
        this(test, dst, src, from, to, withFrames, limit, parameters, null);
    }

    /** The same query for the observations' summaries only. */
    public ObservationQuery summariesOnly() {
        return new ObservationQuery(test, dst, src, from, to, false, limit, parameters, point, before);
    }

    /** The same query for one more observation than it answers with, to tell whether it was cut. */
    public ObservationQuery oneMore() {
        return new ObservationQuery(test, dst, src, from, to, withFrames, limit + 1, parameters, point, before);
    }

    /** The same query from a page key on (null: from the newest). */
    public ObservationQuery before(PageKey key) {
        return new ObservationQuery(test, dst, src, from, to, withFrames, limit, parameters, point, key);
    }

    /** A query over every parameter set. */
    public ObservationQuery(Characteristic.ProbeTest test, String dst, String src, Instant from, Instant to,
                            boolean withFrames, int limit) {
        this(test, dst, src, from, to, withFrames, limit, null);
    }
}
