package org.nmws.service.archive;

import java.time.Instant;

/**
 * One consolidated time bucket: every consolidation function at once, so the select layer
 * picks the one a request names (AVERAGE, MIN, MAX, MEDIAN) without a second query.
 *
 * @param start inclusive start of the bucket (a multiple of the resolution since the epoch)
 * @param count values in the bucket; buckets without values are not returned
 * @param median the middle value, or the mean of the two middle values for an even count
 */
public record TimeBucket(Instant start, long count, double mean, double min, double max, double median) {
}
