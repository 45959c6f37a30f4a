package org.nmws.service.archive;

import java.util.Map;
import org.nmws.service.observation.Characteristic;

/**
 * A filter over the series the archive holds (a MetadataKeyRequest or DataInfoRequest).
 * Every part is optional: null matches anything.
 *
 * @param test the test kind, or null
 * @param src source host name or address, or null
 * @param dst destination host name or address, or null
 * @param parameters parameters a series must have with exactly these values; empty for any
 * @param limit most series returned
 */
public record SeriesQuery(Characteristic.ProbeTest test, String src, String dst, Map<String, String> parameters,
                          int limit) {
    public SeriesQuery {
        parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
    }
}
