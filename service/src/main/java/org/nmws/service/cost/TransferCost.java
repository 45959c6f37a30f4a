package org.nmws.service.cost;

import java.time.Instant;

/**
 * What moving some bytes from a source to a destination would cost, as far as the archive (or
 * a test run for the answer) can tell.
 *
 * @param src the source point, or null for this one
 * @param seconds estimated transfer time, or null when nothing measured the path
 * @param rateMbps the rate the estimate assumes
 * @param basis how the rate was found: achievable-tcp, mathis (from RTT and loss),
 *              available, capacity, or none
 * @param measuredAt when the newest measurement used was taken
 * @param rttMs the round-trip time used, when known
 * @param lossPercent the loss used, when known
 * @param predictor for a rate forecast from a series (achievable-tcp): the predictor chosen
 *        (last, running-mean, mean-N, median-N, smooth-G), else null
 * @param expectedErrorPercent the forecast's expected error as a share of the rate (the chosen
 *        predictor's recent mean absolute error); null when the rate is not a forecast
 * @param samples measurements the rate rests on
 * @param ageSeconds how old the newest of them is
 * @param refreshed a test was run for this answer (the data was stale or missing)
 * @param note why a refresh did not happen or where the answer came from, else null
 */
public record TransferCost(String src, String dst, long bytes, Double seconds, Double rateMbps, String basis,
                           Instant measuredAt, Double rttMs, Double lossPercent, String predictor,
                           Double expectedErrorPercent, int samples, Long ageSeconds, boolean refreshed, String note) {

    /** Nothing known of the path, and why. */
    public static TransferCost unknown(String src, String dst, long bytes, String note) {
        return new TransferCost(src, dst, bytes, null, null, "none", null, null, null, null, null, 0, null, false,
                note.length() > 300 ? note.substring(0, 300) : note);
    }

    /** The same cost under the destination name the client asked with. */
    public TransferCost forDestination(String name) {
        return new TransferCost(src, name, bytes, seconds, rateMbps, basis, measuredAt, rttMs, lossPercent, predictor,
                expectedErrorPercent, samples, ageSeconds, refreshed, note);
    }

    public TransferCost withRefresh(boolean ran, String why) {
        return new TransferCost(src, dst, bytes, seconds, rateMbps, basis, measuredAt, rttMs, lossPercent, predictor,
                expectedErrorPercent, samples, ageSeconds, ran, why);
    }
}
