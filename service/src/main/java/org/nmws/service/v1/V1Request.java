package org.nmws.service.v1;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.nmws.service.observation.PathSubject;

/**
 * One request of a v1 networkMeasurementRequest (or of an XML-RPC NetworkMeasurementRequest,
 * which asks the same things as a struct), after decoding.
 *
 * @param characteristic the GFD.023 dotted name as sent
 * @param subject the path; a node subject is a path from this host to the node
 * @param tool the methodology's tool, or null for any
 * @param from start of methodology/when, or null
 * @param to end of methodology/when, or null
 * @param parameters methodology parameterSet, by name
 * @param statistics statistics asked for (min, mean, median, max, loss, ...); empty for all
 * @param maxResults most measurements reported, newest first
 * @param allowNewMeasurements whether a new test may be run when the archive has nothing
 */
public record V1Request(String characteristic, PathSubject subject, String tool, Instant from, Instant to,
                        Map<String, String> parameters, List<String> statistics, int maxResults,
                        boolean allowNewMeasurements) {
    /** maxResults="unbounded" reads as this many. */
    public static final int UNBOUNDED = 1000;
}
