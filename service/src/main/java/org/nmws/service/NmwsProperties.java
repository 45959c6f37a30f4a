package org.nmws.service;

import java.nio.file.Path;
import java.time.Duration;
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
            if (maxBytes < 1024) throw new IllegalArgumentException("nmws.xml.max-bytes must be >= 1024, was " + maxBytes);
            if (maxDepth < 8) throw new IllegalArgumentException("nmws.xml.max-depth must be >= 8, was " + maxDepth);
        }
    }

    /**
     * @param maxCount most frames one round-trip test may send
     * @param maxDuration longest a single test may run
     * @param maxPairsPerMessage most metadata/data pairs answered in one message
     */
    public record Limits(@DefaultValue("100000") int maxCount,
                         @DefaultValue("PT120S") Duration maxDuration,
                         @DefaultValue("64") int maxPairsPerMessage) {
    }
}
