package org.nmws.service.measure;

import java.time.Duration;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Told when a test that was asked for ends, kept or not (metrics count and time them). Called
 * on the test's thread after the archive has kept the result: implementations must be fast and
 * must not throw (a listener's failure is logged and never changes the client's answer).
 */
public interface TestListener {
    /**
     * @param characteristic what the client asked to measure
     * @param test the probe test chosen for it
     * @param subject the path as the client named it
     * @param took from the request's parse to the archive's commit (or to the failure)
     * @param failure null when the result was kept; else why not (busy, refused, failed, ...)
     * @param kept the observation as the archive kept it; null when failure is not null
     */
    void ended(Characteristic characteristic, Characteristic.ProbeTest test, PathSubject subject, Duration took,
               MeasurementException.Kind failure, Observation kept);
}
