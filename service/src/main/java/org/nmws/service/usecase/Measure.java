package org.nmws.service.usecase;

import java.util.Map;
import java.util.Optional;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.mesh.Forwarder;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.w3c.dom.Element;

/**
 * A request for a new test, from any dialect: decides whether it becomes a schedule, goes to
 * the mesh point its source names, or runs here. The caller is authorized first, against the
 * test as it would run here (role, destination, the caller's limits), so nothing is scheduled,
 * forwarded with this point's credentials, or run for a caller this point would refuse.
 */
public final class Measure {
    private final MeasurementService measurements;
    private final Forwarder forwarder;
    private final Schedules schedules;

    public Measure(MeasurementService measurements, Forwarder forwarder, Schedules schedules) {
        this.measurements = measurements;
        this.forwarder = forwarder;
        this.schedules = schedules;
    }

    /** What became of a request: a result from here, another point's answer, or a schedule. */
    public sealed interface Outcome permits Ran, Forwarded, Scheduled {
    }

    /**
     * Measured here and kept; raw: the client asked for per-frame data; held: the archive
     * could not keep it now, it is held on this point's disk and written when it returns.
     */
    public record Ran(Observation observation, boolean raw, boolean held, java.util.UUID key) implements Outcome {
        /** A held result's key prefix: "r." and its result key, found by SetupDataRequest once it is written. */
        public static final String HELD_KEY = "r.";

        /**
         * The maKey a client sends back for this result: its id in the archive, or, held (the archive
         * could not keep it yet), "r." and its result key, under which it is found once written.
         */
        public String maKey() {
            return held ? HELD_KEY + key : Long.toString(observation.id());
        }
    }

    /** Measured by another point of the mesh: its nmwg:message, as it answered. */
    public record Forwarded(String point, Element message) implements Outcome {
    }

    /** Made a schedule of; what the schedule is, in words. */
    public record Scheduled(String description) implements Outcome {
    }

    /**
     * @param eventType the eventType to ask another point for (the one the client named)
     * @param parameters the test's parameters; schedule.* ones make a schedule of it
     */
    public Outcome measure(Caller caller, Characteristic c, String eventType, PathSubject subject,
                           Map<String, String> parameters) throws MeasurementException {
        boolean schedule = parameters.keySet().stream().anyMatch(k -> k.startsWith("schedule."));
        Optional<Mesh.Point> remote = subject.src() == null ? Optional.empty() : forwarder.remote(subject.src().host());
        if (schedule || remote.isPresent()) {
            // Role, destination and limits, as if it ran here; the schedule's own parameters are not the test's.
            measurements.check(caller, c, new PathSubject(null, subject.dst()), testParameters(parameters));
        }
        if (schedule) {
            try {
                return new Scheduled(schedules.schedule(caller, c.dottedName(), subject.dst().host(), parameters));
            } catch (IllegalArgumentException e) {
                throw new MeasurementException(MeasurementException.Kind.PARAMETER, e.getMessage(), e);
            }
        }
        if (remote.isPresent()) {
            if (caller.forwardedBy() != null) {
                throw new MeasurementException(MeasurementException.Kind.SUBJECT, "a forwarded request names another "
                        + "point as its source; it is not forwarded again");
            }
            // charged here as a test here would be: the point runs it on this point's credentials
            try (MeasurementService.Charge charge = measurements.charge(caller)) {
                try {
                    return new Forwarded(remote.get().name(), forwarder.forward(remote.get(), "MeasurementRequest", eventType,
                            subject.dst(), parameters));
                } catch (Forwarder.ForwardException e) {
                    charge.refund();
                    throw new MeasurementException(MeasurementException.Kind.FAILED, e.getMessage(), e);
                }
            }
        }
        MeasurementService.Measured m = measurements.measure(caller, c, subject, parameters);
        return new Ran(m.observation(), m.raw(), m.held(), m.key());
    }

    private static Map<String, String> testParameters(Map<String, String> parameters) {
        Map<String, String> test = new java.util.LinkedHashMap<>(parameters);
        test.keySet().removeIf(k -> k.startsWith("schedule."));
        return test;
    }
}
