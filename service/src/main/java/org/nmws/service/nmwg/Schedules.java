package org.nmws.service.nmwg;

import java.util.Map;

/**
 * Where a MeasurementRequest carrying schedule.* parameters goes: it makes a schedule of the
 * test rather than running it once (the NMWG form of the schedules API). Implemented by the
 * scheduler; an interface here so that message handling does not depend on it.
 */
public interface Schedules {
    /**
     * Creates or replaces the schedule and says what it is.
     *
     * @param parameters the request's parameters, schedule.* among them
     * @throws IllegalArgumentException for a schedule that cannot be made (error.common.parameter)
     */
    String schedule(String characteristic, String dst, Map<String, String> parameters);

    Schedules NONE = (c, d, p) -> {
        throw new IllegalArgumentException("this service keeps no schedules");
    };
}
