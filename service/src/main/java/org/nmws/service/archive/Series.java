package org.nmws.service.archive;

import java.time.Instant;
import java.util.Map;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.PathSubject;

/**
 * One series the archive holds: every observation of one test on one path with the same
 * parameters, taken by one measurement point. It is what an NMWG metadata block describes
 * and what an maKey names.
 *
 * @param parameters the test parameters as stored, in their stored order
 * @param count how many observations the series holds
 * @param first start of its oldest observation
 * @param last start of its newest observation
 */
public record Series(String measurementPoint, Characteristic.ProbeTest test, PathSubject subject,
                     Map<String, String> parameters, long count, Instant first, Instant last) {
}
