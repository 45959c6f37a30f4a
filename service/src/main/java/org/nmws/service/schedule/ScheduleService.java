package org.nmws.service.schedule;

import java.util.List;
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

    /** Hosts a client without the admin role may name as archives, besides this host's loopback. */
    private final java.util.Set<String> clientArchiveHosts;

    private final FarEndSessions farEnds;

    public ScheduleService(ScheduleStore store, MeasurementService measurements, int maxPerOwner) {
        this(store, measurements, maxPerOwner, java.util.Set.of());
    }

    public ScheduleService(ScheduleStore store, MeasurementService measurements, int maxPerOwner,
                           java.util.Set<String> clientArchiveHosts) {
        this(store, measurements, maxPerOwner, clientArchiveHosts, new FarEndSessions());
    }

    /** @param farEnds what far ends' responders said of their sessions (the scheduler's bookings tell it) */
    public ScheduleService(ScheduleStore store, MeasurementService measurements, int maxPerOwner,
                           java.util.Set<String> clientArchiveHosts, FarEndSessions farEnds) {
        this.farEnds = farEnds;
        this.clientArchiveHosts = java.util.Set.copyOf(clientArchiveHosts);
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
        if (caller.internal()) {
            // the configuration's and a template's schedules, read again unchanged: nothing to
            // check or write (a 450-schedule pSConfig share re-read took 1.4 s doing both)
            Optional<Schedule> existing = store.byName(name);
            if (existing.isPresent() && ScheduleStore.same(existing.get(), wanted)) {
                return existing.get();
            }
        }
        measurements.check(caller, c, subject, wanted.parameters());
        mayArchive(caller, wanted);
        // Exclusive tests that cannot fit at their far end are refused; the others may still run in
        // the time exclusive ones leave (or as non-starters naming who held the time): a warning.
        // This point's schedules to that far host are read once for both.
        List<Schedule> mine = store.of(self, subject.dst().host());
        String over = overBooked(mine, store, measurements, wanted, true, farEnds);
        if (over != null) {
            throw new IllegalArgumentException("schedule " + name + ": " + over);
        }
        over = overBooked(mine, store, measurements, wanted, false, farEnds);
        if (over != null) {
            org.slf4j.LoggerFactory.getLogger(ScheduleService.class).warn("schedule {}: {}; some of their runs will not start",
                    name, over);
        }
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
            if (caller.internal() || caller.admin()) {
                return store.put(caller.internal() ? wanted : wanted.ownedBy(caller.owner(), caller.address()));
            }
            // The lock above keeps this point's clients apart; points sharing one archive are kept
            // apart by the write itself, which takes the name only while it is free or the caller's.
            Optional<Schedule> kept = store.putIfOwnedBy(wanted.ownedBy(caller.owner(), caller.address()), caller.owner());
            if (kept.isEmpty()) {
                mayChange(caller, store.byName(name).orElseThrow(() -> new MeasurementException(
                        MeasurementException.Kind.BUSY, "schedule " + name + " is being changed by another point; try again")));
                throw new MeasurementException(MeasurementException.Kind.BUSY, "schedule " + name
                        + " is being changed by another point; try again");
            }
            return kept.get();
        }
    }

    /**
     * Whether this point's enabled schedules to the far end of {@code added} (replacing one of
     * the same name), each a test that holds an nmprobe-responder, need more of its time than
     * there is (only the exclusive ones counted, or all): the message names them and their
     * demands, else null. Only this point's schedules are counted; the far end's calendar keeps
     * other points' runs apart as they come.
     */
    static String overBooked(List<Schedule> mine, ScheduleStore store, MeasurementService measurements, Schedule added,
                             boolean exclusive, FarEndSessions farEnds) {
        String far = responderHost(measurements, added);
        if (far == null || !added.enabled()) {
            return null;
        }
        java.util.List<Schedule> same = new java.util.ArrayList<>();
        for (Schedule s : mine) {
            if (s.enabled() && !s.name().equals(added.name()) && far.equals(responderHost(measurements, s))) {
                same.add(s);
            }
        }
        same.add(added);
        return SlotDemand.overBooked(far, same, s -> s.id() > 0 ? store.lastDuration(s.id()) : null, exclusive,
                measurements.sharedTestsPerPath(), farEnds.of(far));
    }

    /** Logs, at start-up, each far end that the configuration's and the mesh's schedules over-book. */
    static void warnOverBooked(ScheduleStore store, String self, MeasurementService measurements) {
        java.util.Map<String, java.util.List<Schedule>> byFar = new java.util.TreeMap<>();
        for (Schedule s : store.of(self)) {
            String far = s.enabled() ? responderHost(measurements, s) : null;
            if (far != null) {
                byFar.computeIfAbsent(far, k -> new java.util.ArrayList<>()).add(s);
            }
        }
        byFar.forEach((far, list) -> {
            String over = SlotDemand.overBooked(far, list, s -> store.lastDuration(s.id()), false, measurements.sharedTestsPerPath());
            if (over != null) {
                org.slf4j.LoggerFactory.getLogger(ScheduleService.class).warn("{}; some of their runs will not start", over);
            }
        });
    }

    /** "host:port" of the responder a schedule's test holds, or null when it holds none. */
    private static String responderHost(MeasurementService measurements, Schedule s) {
        try {
            Characteristic c = Characteristic.lookup(s.characteristic()).orElse(null);
            if (c == null || measurements.farEndOf(c, s.parameters()) != org.nmws.service.measure.FarEnd.RESPONDER) {
                return null;
            }
            String port = s.parameters().get("port");
            return Endpoint.parse(s.dst(), null).host() + ":"
                    + (port != null ? Integer.parseInt(port.trim()) : measurements.responderPort());
        } catch (IllegalArgumentException e) {
            return null;
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
            // as in put: another point sharing the archive may have taken the name meanwhile
            if (caller.internal() || caller.admin()) {
                return store.delete(name);
            }
            if (!store.deleteIfOwnedBy(name, caller.owner())) {
                Optional<Schedule> now = store.byName(name);
                if (now.isEmpty()) {
                    return false;
                }
                mayChange(caller, now.get());
                return store.deleteIfOwnedBy(name, caller.owner());
            }
            return true;
        }
    }

    /**
     * An archive makes this service send every result to a host: a client without the admin role
     * may name only this host's loopback or the hosts the operator listed
     * (nmws.archivers.client-hosts), so a schedule cannot turn the service into a sender towards
     * hosts that never agreed. The configuration and pSConfig templates are the operator's own.
     */
    private void mayArchive(Caller caller, Schedule s) throws MeasurementException {
        if (caller.internal() || caller.admin()) {
            return;
        }
        for (org.nmws.service.archive.ArchiveTarget a : s.archives()) {
            // files of this host (a kafka archive's TLS keys): named by an admin or the configuration only
            for (java.util.Iterator<String> f = a.data().fieldNames(); f.hasNext(); ) {
                String field = f.next();
                if (field.startsWith("_ssl_") && !field.equals("_ssl_password")) {
                    throw new MeasurementException(MeasurementException.Kind.DENIED, "archive " + a.name() + " names " + field
                            + ", a file on this host: only an admin or the configuration may");
                }
            }
            for (String host : a.hosts()) {
                if (!loopback(host) && !clientArchiveHosts.contains(host.toLowerCase(java.util.Locale.ROOT))) {
                    throw new MeasurementException(MeasurementException.Kind.DENIED, "archive " + a.name() + " would send"
                            + " results to " + host + ", which is neither this host's loopback nor in"
                            + " nmws.archivers.client-hosts; ask an admin to add it, or to make the schedule");
                }
            }
        }
    }

    /** A loopback literal or localhost; a name is not looked up (its answer could change after the check). */
    private static boolean loopback(String host) {
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (!host.matches("[0-9.]+|[0-9A-Fa-f:]+")) {
            return false;
        }
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress(); // a literal: no lookup
        } catch (java.net.UnknownHostException e) {
            return false;
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
