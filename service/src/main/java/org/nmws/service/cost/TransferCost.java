package org.nmws.service.cost;

import java.time.Instant;

/**
 * What moving some bytes to a destination would cost, as far as the archive can tell.
 *
 * @param seconds estimated transfer time, or null when nothing measured the path
 * @param rateMbps the rate the estimate assumes
 * @param basis how the rate was found: achievable-tcp, mathis (from RTT and loss),
 *              available, capacity, or none
 * @param measuredAt when the newest measurement used was taken
 * @param rttMs the round-trip time used, when known
 * @param lossPercent the loss used, when known
 */
public record TransferCost(String dst, long bytes, Double seconds, Double rateMbps, String basis, Instant measuredAt,
                           Double rttMs, Double lossPercent) {
}
