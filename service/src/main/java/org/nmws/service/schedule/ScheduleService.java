package org.nmws.service.schedule;

import java.util.Optional;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.PathSubject;

/**
 * Schedules as a use case, for every dialect (JSON, NMWG schedule.* parameters, the CLI): a
 * schedule belongs to the client that made it, runs on this point with that client's identity
 * and limits, and only its owner or an admin replaces or deletes it. The test it repeats is
 * checked as if the client asked for it now (role, destination, limits); a client keeps at
 * most maxPerOwner schedules.
 */
public final class ScheduleService {
    private final ScheduleStore store;
    private final MeasurementService measurements;
    private final String self;
    private final int maxPerOwner;

    /** Serialises the check of who may change a name with the change (this point's clients). */
    private final Object changes = new Object();

    public ScheduleService(ScheduleStore store, MeasurementService measurements, int maxPerOwner) {
        this.store = store;
        this.measurements = measurements;
        this.self = measurements.measurementPoint();
        this.maxPerOwner = maxPerOwner;
    }

    /**
     * Creates or replaces a schedule for the caller.
     *
     * @throws IllegalArgumentException for a schedule that cannot be made as asked
     * @throws MeasurementException when the caller may not (DENIED) or has its most (RATE_LIMITED)
     */
    public Schedule put(Caller caller, String name, ScheduleRequest request) throws MeasurementException {
        caller.requireMeasure();
        if (!caller.internal() && name.startsWith("psconfig:")) {
            throw new MeasurementException(MeasurementException.Kind.DENIED, "schedule names psconfig:... are the pSConfig"
                    + " template's; name yours otherwise");
        }
        Schedule wanted = request.toSchedule(name, self, measurements::testClassOf);
        if (!caller.internal() && !caller.admin() && !wanted.point().equals(self)) {
            throw new MeasurementException(MeasurementException.Kind.DENIED, "schedule " + name + " would run on point '"
                    + wanted.point() + "'; a client's schedule runs on the point that takes it (" + self + "): ask that point");
        }
        Characteristic c = Characteristic.lookup(wanted.characteristic()).orElseThrow();
        // The test as the client may ask for it now: its networks, durations and rates.
        PathSubject subject = new PathSubject(wanted.src() == null ? null : Endpoint.parse(wanted.src(), null),
                Endpoint.parse(wanted.dst(), null));
        if (wanted.point().equals(self)) {
            MeasurementService.checkSourceIsLocal(subject); // a src names this point's own address, or nothing
        }
        measurements.check(caller, c, subject, wanted.parameters());
        // Who may change a name is decided and written in one step: two clients creating the same
        // name at once would otherwise both find it free, and the second would take the first's.
        synchronized (changes) {
            Optional<Schedule> existing = store.byName(name);
            if (existing.isPresent()) {
                mayChange(caller, existing.get());
            } else if (!caller.internal() && maxPerOwner > 0 && store.ownedBy(caller.owner()) >= maxPerOwner) {
                throw new MeasurementException(MeasurementException.Kind.RATE_LIMITED, caller.owner() + " already has "
                        + maxPerOwner + " schedules (nmws.scheduler.max-per-owner); delete one first");
            }
            return store.put(caller.internal() ? wanted : wanted.ownedBy(caller.owner(), caller.address()));
        }
    }

    /** Deletes a schedule of the caller's (or any, for an admin); false when there is none of that name. */
    public boolean delete(Caller caller, String name) throws MeasurementException {
        caller.requireMeasure();
        synchronized (changes) {
            Optional<Schedule> existing = store.byName(name);
            if (existing.isEmpty()) {
                return false;
            }
            mayChange(caller, existing.get());
            return store.delete(name);
        }
    }

    private static void mayChange(Caller caller, Schedule s) throws MeasurementException {
        if (caller.internal() || caller.admin()) {
            return;
        }
        if (s.owner() == null) {
            throw new MeasurementException(MeasurementException.Kind.DENIED, "schedule " + s.name()
                    + " comes from this point's configuration; only an admin may replace or delete it");
        }
        if (!s.owner().equals(caller.owner())) {
            throw new MeasurementException(MeasurementException.Kind.DENIED, "schedule " + s.name() + " belongs to "
                    + s.owner() + "; only its owner or an admin may replace or delete it");
        }
    }
}
