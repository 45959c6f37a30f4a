package org.nmws.service.schedule;

import java.util.HashMap;
import java.util.Map;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.usecase.Schedules;

/**
 * The NMWG form of the schedules API: a MeasurementRequest whose parameters include
 * schedule.period (or schedule.continuous=true) makes a schedule of its test, named by
 * schedule.name (default: characteristic:dst), with schedule.slip, schedule.class,
 * schedule.start and schedule.end; the other parameters are the test's.
 */
final class NmwgSchedules implements Schedules {
    private final ScheduleService schedules;

    NmwgSchedules(ScheduleService schedules) {
        this.schedules = schedules;
    }

    @Override
    public String schedule(Caller caller, String characteristic, String dst, Map<String, String> parameters)
            throws MeasurementException {
        Map<String, String> test = new HashMap<>();
        Map<String, String> sched = new HashMap<>();
        parameters.forEach((k, v) -> (k.startsWith("schedule.") ? sched : test).put(k, v));
        for (String k : sched.keySet()) {
            if (!java.util.Set.of("schedule.period", "schedule.name", "schedule.slip", "schedule.class", "schedule.start",
                    "schedule.end", "schedule.continuous", "schedule.archives").contains(k)) {
                throw new IllegalArgumentException("unknown schedule parameter " + org.nmws.service.observation.Params.echo(k));
            }
        }
        String continuous = sched.get("schedule.continuous");
        if (continuous != null && !continuous.equals("true") && !continuous.equals("false")) {
            throw new IllegalArgumentException("schedule.continuous must be true or false");
        }
        String name = sched.getOrDefault("schedule.name", characteristic + ":" + dst);
        Schedule s = schedules.put(caller, name, new ScheduleRequest(characteristic, dst, test, sched.get("schedule.period"),
                sched.get("schedule.slip"), sched.get("schedule.start"), sched.get("schedule.end"), sched.get("schedule.class"),
                null, true, "true".equals(continuous), archives(sched.get("schedule.archives"))));
        return "schedule " + s.name() + ": " + s.characteristic() + " to " + s.dst() + " every " + s.period() + " (slip up to "
                + s.slip() + ", class " + s.testClass().label() + ") from " + s.point() + "; its runs at /api/schedules/"
                + s.name() + "/runs";
    }

    private static com.fasterxml.jackson.databind.JsonNode archives(String text) {
        if (text == null) {
            return null;
        }
        if (text.length() > 65536) {
            throw new IllegalArgumentException("schedule.archives is longer than 64 KiB");
        }
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("schedule.archives is not JSON: " + e.getOriginalMessage());
        }
    }
}
