package org.nmws.service.observation;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One test as taken: what was measured, on which path, how, where, when, what it gave.
 *
 * @param id archive id; 0 before the archive has kept it
 * @param measurementPoint the nmws instance that took it
 * @param test the probe test that ran (one test can answer several characteristics)
 * @param subject the path as the client named it
 * @param srcAddress the address the probe sent from
 * @param dstAddress the address the probe reached
 * @param parameters every test parameter, by its NMWG name, in a stable order
 * @param summary summary figures by datum name (minRtt, meanRtt, lossPercent, ...)
 * @param frames per-frame records; may be empty when read back without raw data
 * @param samples raw series that are not frames, as named columns of equal length (TCP_INFO
 *                samples of a TCP test: offsetNs, stream, cwndSegments, srttUs, ...); empty for most tests
 */
public record Observation(long id, String measurementPoint, Characteristic.ProbeTest test, PathSubject subject,
                          String srcAddress, String dstAddress, String tool, String toolVersion,
                          Map<String, String> parameters, Environment environment, Instant start, Instant end,
                          Map<String, Double> summary, List<Frame> frames, Map<String, long[]> samples) {

    /** An observation with no sample series besides its frames. */
    public Observation(long id, String measurementPoint, Characteristic.ProbeTest test, PathSubject subject,
                       String srcAddress, String dstAddress, String tool, String toolVersion,
                       Map<String, String> parameters, Environment environment, Instant start, Instant end,
                       Map<String, Double> summary, List<Frame> frames) {
        this(id, measurementPoint, test, subject, srcAddress, dstAddress, tool, toolVersion, parameters, environment,
                start, end, summary, frames, Map.of());
    }

    /**
     * One probe frame.
     *
     * @param valueNanos the measured value (an RTT), or -1 when the frame was lost
     * @param ttl the IP TTL the reply arrived with, or -1
     */
    public record Frame(long seq, long sendEpochNanos, long valueNanos, long bytes, int ttl) {
        /**
         * The value of a frame that never arrived. Only this one value: a one-way delay between
         * unsynchronised clocks is negative and still a delay.
         */
        public static final long LOST = -1;

        public boolean lost() {
            return valueNanos == LOST;
        }
    }

    public Observation withId(long newId) {
        return new Observation(newId, measurementPoint, test, subject, srcAddress, dstAddress, tool, toolVersion,
                parameters, environment, start, end, summary, frames, samples);
    }

    public Observation withFrames(List<Frame> newFrames) {
        return new Observation(id, measurementPoint, test, subject, srcAddress, dstAddress, tool, toolVersion,
                parameters, environment, start, end, summary, newFrames, samples);
    }
}
