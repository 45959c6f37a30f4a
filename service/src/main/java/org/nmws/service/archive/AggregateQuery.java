package org.nmws.service.archive;

import java.time.Duration;
import java.time.Instant;
import org.nmws.service.observation.Characteristic;

/**
 * One figure of one path's observations, consolidated into time buckets (an NMWG select
 * with consolidationFunction and resolution).
 *
 * @param test the test kind
 * @param dst the destination as stored name or address
 * @param src the source, or null for any
 * @param from inclusive start of the window
 * @param to exclusive end of the window
 * @param resolution bucket width; buckets start at multiples of it since the epoch, as RRD
 *     consolidates, so the same resolution always yields the same bucket edges
 * @param figure a summary datum name (meanRtt, lossPercent, ...) when {@code source} is
 *     SUMMARY; ignored (may be null) for RAW
 * @param source which series the figure comes from
 */
public record AggregateQuery(Characteristic.ProbeTest test, String dst, String src, Instant from, Instant to,
                             Duration resolution, String figure, Source source) {

    /** Where the aggregated values come from. */
    public enum Source {
        /** One value per observation: its summary figure named by {@code figure}. */
        SUMMARY,
        /**
         * One value per raw frame: its measured value in nanoseconds (the RTT), lost frames
         * left out, bucketed by the frame's own send time. Empty once retention removed the raw data.
         */
        RAW
    }

    public AggregateQuery {
        if (test == null || dst == null || from == null || to == null || resolution == null || source == null) {
            throw new IllegalArgumentException("aggregate query needs test, dst, from, to, resolution and source");
        }
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("aggregate window is empty: from " + from + " is not before to " + to);
        }
        if (resolution.isNegative() || resolution.isZero()) {
            throw new IllegalArgumentException("resolution must be positive, was " + resolution);
        }
        if (source == Source.SUMMARY && (figure == null || figure.isBlank())) {
            throw new IllegalArgumentException("a SUMMARY aggregate needs the figure to aggregate (meanRtt, ...)");
        }
    }

    /** Buckets of a summary figure (meanRtt, minRtt, lossPercent, ...). */
    public static AggregateQuery summary(Characteristic.ProbeTest test, String dst, String src, Instant from, Instant to,
                                         Duration resolution, String figure) {
        return new AggregateQuery(test, dst, src, from, to, resolution, figure, Source.SUMMARY);
    }

    /** Buckets of raw per-frame values (nanoseconds). */
    public static AggregateQuery raw(Characteristic.ProbeTest test, String dst, String src, Instant from, Instant to,
                                     Duration resolution) {
        return new AggregateQuery(test, dst, src, from, to, resolution, null, Source.RAW);
    }
}
