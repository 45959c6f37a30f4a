package org.nmws.service.usecase;

import java.util.Map;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;

/**
 * Where a measure request carrying schedule.* parameters goes: it makes a schedule of the
 * test rather than running it once. Implemented by the scheduler; an interface here so that
 * the use cases do not depend on it.
 */
public interface Schedules {
    /**
     * Creates or replaces the schedule and says what it is. The caller has been authorized to
     * measure before this is called.
     *
     * @param parameters the request's parameters, schedule.* among them
     * @throws IllegalArgumentException for a schedule that cannot be made (error.common.parameter)
     * @throws MeasurementException when the caller may not make or change it
     */
    String schedule(Caller caller, String characteristic, String dst, Map<String, String> parameters)
            throws MeasurementException;

    Schedules NONE = (who, c, d, p) -> {
        throw new IllegalArgumentException("this service keeps no schedules");
    };
}
