package org.nmws.service;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Service configuration, validated once at start-up.
 *
 * @param dataDir where the embedded archive (SQLite) lives
 * @param measurementPoint the name this instance tags its results with; blank means the host name
 * @param responderPort the control port of responders when a request names none
 * @param xml limits on every XML document the service parses
 * @param limits hard limits on what one request may ask a probe to do
 */
@ConfigurationProperties("nmws")
public record NmwsProperties(
        @DefaultValue("data") Path dataDir,
        @DefaultValue("") String measurementPoint,
        @DefaultValue("8700") int responderPort,
        @DefaultValue Xml xml,
        @DefaultValue Limits limits) {

    public NmwsProperties {
        if (responderPort < 1 || responderPort > 65535) {
            throw new IllegalArgumentException("nmws.responder-port must be 1..65535, was " + responderPort);
        }
    }

    /**
     * @param maxBytes largest request document accepted
     * @param maxDepth deepest element nesting accepted
     */
    public record Xml(@DefaultValue("4194304") int maxBytes, @DefaultValue("64") int maxDepth) {
        public Xml {
            if (maxBytes < 1024 || maxBytes > 256 * 1024 * 1024) {
                throw new IllegalArgumentException("nmws.xml.max-bytes must be 1024..268435456, was " + maxBytes);
            }
            if (maxDepth < 8 || maxDepth > 512) {
                throw new IllegalArgumentException("nmws.xml.max-depth must be 8..512, was " + maxDepth);
            }
        }
    }

    /**
     * @param maxCount most frames one round-trip test may send
     * @param maxDuration longest a single test may run
     * @param maxPairsPerMessage most metadata/data pairs answered in one message
     * @param maxMeasurementsPerMessage most new tests one message may ask for (each may hold
     *        a path for maxDuration: a message of many would hold its connection for hours)
     * @param testClients addresses or CIDR blocks whose unauthenticated clients may start tests:
     *        loopback by default, none when empty (authenticated clients with the measure role
     *        may start tests from anywhere; see nmws.security)
     * @param testsPerClientPerMinute tests one client address may start a minute; 0 means no limit
     * @param maxAnswerFrames most raw frames (and sample points) one answer may carry, over all
     *        its pairs: raw answers are built in memory, so this bounds what one request can cost
     *        (all answers being built at once hold at most twice this)
     * @param maxRateMbps the fastest a test may send (UDP streams, available-bandwidth scans),
     *        in Mbit/s of user data; 0 means no limit
     * @param sharedTestsPerPath how many tests that are not exclusive (round trips, one-way delay)
     *        this point runs to one destination at once; an exclusive test has the path alone. 1 (the
     *        default): one test per path. More suits far responders run with --sessions N
     */
    public record Limits(@DefaultValue("100000") int maxCount,
                         @DefaultValue("PT120S") Duration maxDuration,
                         @DefaultValue("64") int maxPairsPerMessage,
                         @DefaultValue("4") int maxMeasurementsPerMessage,
                         @DefaultValue({"127.0.0.0/8", "::1"}) List<String> testClients,
                         @DefaultValue("60") int testsPerClientPerMinute,
                         @DefaultValue("100000") int maxAnswerFrames,
                         @DefaultValue("0") double maxRateMbps,
                         @DefaultValue("1") int sharedTestsPerPath) {
        @org.springframework.boot.context.properties.bind.ConstructorBinding
        public Limits {
            if (sharedTestsPerPath < 1 || sharedTestsPerPath > 16) {
                throw new IllegalArgumentException("nmws.limits.shared-tests-per-path must be 1..16, was " + sharedTestsPerPath);
            }
            if (!(maxRateMbps >= 0 && maxRateMbps <= 1_000_000)) {
                throw new IllegalArgumentException("nmws.limits.max-rate-mbps must be 0..1000000, was " + maxRateMbps);
            }
            if (maxAnswerFrames < 1000 || maxAnswerFrames > 100_000_000) {
                throw new IllegalArgumentException("nmws.limits.max-answer-frames must be 1000..100000000, was " + maxAnswerFrames);
            }
            if (maxCount < 1 || maxCount > 10_000_000) {
                throw new IllegalArgumentException("nmws.limits.max-count must be 1..10000000, was " + maxCount);
            }
            if (maxDuration.isNegative() || maxDuration.toSeconds() < 1 || maxDuration.toHours() > 24) {
                throw new IllegalArgumentException("nmws.limits.max-duration must be 1 s..24 h, was " + maxDuration);
            }
            if (maxPairsPerMessage < 1 || maxPairsPerMessage > 10_000) {
                throw new IllegalArgumentException("nmws.limits.max-pairs-per-message must be 1..10000, was " + maxPairsPerMessage);
            }
            if (maxMeasurementsPerMessage < 1 || maxMeasurementsPerMessage > maxPairsPerMessage) {
                throw new IllegalArgumentException("nmws.limits.max-measurements-per-message must be 1..max-pairs-per-message, was "
                        + maxMeasurementsPerMessage);
            }
        }

        /** One test per path. */
        public Limits(int maxCount, Duration maxDuration, int maxPairsPerMessage, int maxMeasurementsPerMessage,
                      List<String> testClients, int testsPerClientPerMinute, int maxAnswerFrames, double maxRateMbps) {
            this(maxCount, maxDuration, maxPairsPerMessage, maxMeasurementsPerMessage, testClients, testsPerClientPerMinute,
                    maxAnswerFrames, maxRateMbps, 1);
        }
    }
}
