package org.nmws.service.measure;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.nmws.probe.ProbeException;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ArchiveTarget;
import org.nmws.service.archive.ResultKeeper;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Runs tests on request, whatever their kind: decides who may test, takes the path's lock
 * (one test per destination at a time from this point), lists the test with its progress,
 * stops it when it overruns, and keeps the result in the archive before anyone sees it. What
 * a test is (its parameters, the engine call, its figures) is its {@link MeasurementKind}'s.
 */
public class MeasurementService {
    public static final String TOOL = "nmprobe";

    private final ResultKeeper keeper;
    private final HostEnvironment host;
    private final NmwsProperties props;
    private final String measurementPoint;
    private final Map<String, Semaphore> pathLocks = new ConcurrentHashMap<>();
    private final RunningTests running;
    private final TestAdmission admission;
    private final MeasurementKinds kinds;
    /** Cancels tests that run past the duration limit; owned by the application context. */
    private final ScheduledExecutorService watchdog;
    private final MeasurementKind.Context context;
    private final Interlock interlock = new Interlock();
    private final java.util.List<TestListener> listeners;
    private final Engine engine;

    public MeasurementService(Archive archive, HostEnvironment host, NmwsProperties props, RunningTests running,
                              TestAdmission admission, MeasurementKinds kinds, ScheduledExecutorService watchdog) {
        this(archive, host, props, running, admission, kinds, watchdog, java.util.List.of());
    }

    /** As above, with listeners told of every test's end (metrics). */
    public MeasurementService(Archive archive, HostEnvironment host, NmwsProperties props, RunningTests running,
                              TestAdmission admission, MeasurementKinds kinds, ScheduledExecutorService watchdog,
                              java.util.List<TestListener> listeners) {
        this(archive, host, props, running, admission, kinds, watchdog, listeners, Engine.NATIVE);
    }

    /** As above, on a given engine (a fake one in unit tests); a result the archive refuses fails its test. */
    public MeasurementService(Archive archive, HostEnvironment host, NmwsProperties props, RunningTests running,
                              TestAdmission admission, MeasurementKinds kinds, ScheduledExecutorService watchdog,
                              java.util.List<TestListener> listeners, Engine engine) {
        this(ResultKeeper.direct(archive), host, props, running, admission, kinds, watchdog, listeners, engine);
    }

    /** As above, keeping results through a keeper that holds them while the archive is down. */
    public MeasurementService(ResultKeeper keeper, HostEnvironment host, NmwsProperties props, RunningTests running,
                              TestAdmission admission, MeasurementKinds kinds, ScheduledExecutorService watchdog,
                              java.util.List<TestListener> listeners, Engine engine) {
        this.engine = engine;
        this.listeners = java.util.List.copyOf(listeners);
        this.admission = admission;
        this.keeper = keeper;
        this.running = running;
        this.host = host;
        this.props = props;
        this.kinds = kinds;
        this.watchdog = watchdog;
        this.context = new MeasurementKind.Context(props.responderPort(), props.limits());
        this.measurementPoint = props.measurementPoint().isBlank() ? host.hostName() : props.measurementPoint();
    }

    /**
     * The tests running now, on demand or scheduled, with their class and when each should be
     * over (from its progress, else the longest a test may run): what a plan must leave room for.
     */
    public java.util.List<Busy> busyNow() {
        java.util.List<Busy> out = new java.util.ArrayList<>();
        Instant now = Instant.now();
        for (RunningTests.Running r : running.list()) {
            double elapsed = java.time.Duration.between(r.started(), now).toMillis() / 1000.0;
            double left = r.done() > 0 && r.total() >= r.done() ? elapsed * (r.total() - r.done()) / r.done()
                    : Math.max(1, props.limits().maxDuration().toSeconds() - elapsed);
            out.add(new Busy(r.testClass(), r.started(), now.plusMillis((long) (left * 1000))));
        }
        return out;
    }

    /** A running test's class and the time it holds the host for. */
    public record Busy(TestClass testClass, Instant from, Instant until) {
    }

    /** How many light tests this point runs to one path at once (nmws.limits.shared-tests-per-path). */
    public int sharedTestsPerPath() {
        return props.limits().sharedTestsPerPath();
    }

    /** The host-wide interlock of test classes, shared by on-demand and scheduled tests. */
    public Interlock interlock() {
        return interlock;
    }

    public String measurementPoint() {
        return measurementPoint;
    }

    /**
     * A result as kept, and whether the client asked for per-frame data.
     *
     * @param held the archive could not keep it now: it is held on this point's disk (its id
     *        is 0) and written under {@code key} when the archive returns
     */
    public record Measured(Observation observation, boolean raw, boolean held, UUID key) {
    }

    /**
     * Runs the test that measures a characteristic, with NMWG parameters, for a caller, and
     * archives it: the one place every use case starts a test.
     */
    public Measured measure(Caller caller, Characteristic c, PathSubject subject, Map<String, String> nmwgParameters)
            throws MeasurementException {
        return measure(caller, c, subject, nmwgParameters, parse(() -> testClassOf(c, nmwgParameters)), 0);
    }

    /**
     * The class a test of this characteristic with these parameters runs in, as its kind says.
     *
     * @throws IllegalArgumentException for parameters that select no test
     */
    public TestClass testClassOf(Characteristic c, Map<String, String> nmwgParameters) {
        return kinds.get(c.testFor(nmwgParameters)).testClass(c);
    }

    /**
     * As {@link #measure(Caller, Characteristic, PathSubject, Map)}, in a given class, waiting up
     * to waitMillis for the class interlock and the path (a scheduled run waits within its
     * slot; an on-demand request does not wait).
     */
    public Measured measure(Caller caller, Characteristic c, PathSubject subject, Map<String, String> nmwgParameters,
                            TestClass testClass, long waitMillis) throws MeasurementException {
        return measure(caller, c, subject, nmwgParameters, testClass, waitMillis, UUID.randomUUID());
    }

    /**
     * As above, the result kept under a key chosen beforehand (a scheduled run records it when
     * it is claimed, so that its result is found by it after a crash).
     */
    public Measured measure(Caller caller, Characteristic c, PathSubject subject, Map<String, String> nmwgParameters,
                            TestClass testClass, long waitMillis, UUID key) throws MeasurementException {
        return measure(caller, c, subject, nmwgParameters, testClass, waitMillis, key, List.of());
    }

    /**
     * As above, the result also sent to archives (a schedule's): queued in the outbox in the
     * transaction that keeps it. A test whose archive's backlog is at its bound does not start.
     */
    public Measured measure(Caller caller, Characteristic c, PathSubject subject, Map<String, String> nmwgParameters,
                            TestClass testClass, long waitMillis, UUID key, List<ArchiveTarget> archives)
            throws MeasurementException {
        Admitted<?> a;
        try {
            a = admit(caller, c, subject, nmwgParameters);
        } catch (MeasurementException e) {
            // refused before admission (no right, a destination outside the caller's networks,
            // a parameter): no test, but counted as not started like a busy one (issue 26)
            Characteristic.ProbeTest test = testOrDefault(c, nmwgParameters);
            if (test != null) {
                tell(c, test, subject, System.nanoTime(), e.kind(), null);
            }
            throw e;
        }
        return measure(a, c, subject, testClass, waitMillis, key, archives);
    }

    /** The test the parameters select, else the characteristic's own (parameters that select none), else null. */
    private static Characteristic.ProbeTest testOrDefault(Characteristic c, Map<String, String> nmwgParameters) {
        try {
            return c.testFor(nmwgParameters);
        } catch (RuntimeException e) {
            try {
                return c.testFor(Map.of());
            } catch (RuntimeException none) {
                return null;
            }
        }
    }

    /**
     * Decides whether the caller may ask for this test, as it would be run here: the measure
     * role, a destination that is a host within the caller's networks, and parameters within
     * the caller's limits. Nothing runs and nothing is charged; a request that is forwarded to
     * another point is checked here first, so a point never lends its own credentials to a
     * caller it would refuse.
     */
    public void check(Caller caller, Characteristic c, PathSubject subject, Map<String, String> nmwgParameters)
            throws MeasurementException {
        admit(caller, c, subject, nmwgParameters);
    }

    private record Admitted<P>(MeasurementKind<P> kind, P parameters, Caller caller) {
    }

    /**
     * Charges a test another point runs for this caller with this point's credentials, as a test
     * here is charged: the message's budget, the client's rate, tests an hour and at once.
     * Closed when the answer came; refunded too when no test ran there.
     */
    public Charge charge(Caller caller) throws MeasurementException {
        if (caller.budget() != null) {
            caller.budget().take();
        }
        try {
            return new Charge(caller, admission.begin(caller));
        } catch (MeasurementException e) {
            if (caller.budget() != null) {
                caller.budget().giveBack();
            }
            throw e;
        }
    }

    /** A test charged to a caller and run elsewhere. */
    public static final class Charge implements AutoCloseable {
        private final Caller caller;
        private final TestAdmission.Slot slot;

        private Charge(Caller caller, TestAdmission.Slot slot) {
            this.caller = caller;
            this.slot = slot;
        }

        /** No test ran after all: the budget and the rates are given back. */
        public void refund() {
            slot.refund();
            if (caller.budget() != null) {
                caller.budget().giveBack();
            }
        }

        @Override
        public void close() {
            slot.close();
        }
    }

    private Admitted<?> admit(Caller caller, Characteristic c, PathSubject subject, Map<String, String> nmwgParameters)
            throws MeasurementException {
        // Who may test is settled before the request is looked at; the rate is charged only
        // when a test is about to start, so a typo or a busy path costs nothing.
        admission.authorize(caller);
        checkIsAHost(subject.dst().host());
        caller.limits().checkDestination(subject.dst().host());
        MeasurementKind<?> kind = kinds.get(parse(() -> c.testFor(nmwgParameters)));
        return admitted(kind, c, nmwgParameters, caller);
    }

    private <P> Admitted<P> admitted(MeasurementKind<P> kind, Characteristic c, Map<String, String> nmwgParameters,
                                     Caller caller) throws MeasurementException {
        MeasurementKind.Context narrowed = new MeasurementKind.Context(context.responderPort(),
                caller.limits().narrow(context.limits()));
        return new Admitted<>(kind, parse(() -> kind.parse(nmwgParameters, c, narrowed)), caller);
    }

    private <P> Measured measure(Admitted<P> admitted, Characteristic c, PathSubject subject, TestClass testClass,
                                 long waitMillis, UUID key, List<ArchiveTarget> archives) throws MeasurementException {
        MeasurementKind<P> kind = admitted.kind();
        P parameters = admitted.parameters();
        try {
            keeper.checkRoom(archives); // no test whose result nothing could keep, or its archives could not queue
        } catch (ResultKeeper.NotKept e) {
            throw new MeasurementException(MeasurementException.Kind.STORAGE, e.getMessage());
        }
        // Timed from here: a request refused before (bad parameters, no right to test) is no test.
        long t0 = System.nanoTime();
        ResultKeeper.Kept result;
        Observation kept;
        try {
            Observation measured = kind.run(parameters, subject, new Runner(admitted.caller(), c.dottedName(), testClass, waitMillis));
            try {
                result = keeper.keep(measured, key, archives);
            } catch (ResultKeeper.NotKept e) {
                throw new MeasurementException(MeasurementException.Kind.STORAGE, e.getMessage(), e);
            }
            kept = result.observation();
        } catch (MeasurementException e) {
            tell(c, kind.test(), subject, t0, e.kind(), null);
            throw e;
        } catch (RuntimeException e) {
            tell(c, kind.test(), subject, t0, MeasurementException.Kind.FAILED, null);
            throw e;
        }
        tell(c, kind.test(), subject, t0, null, kept);
        return new Measured(kept, kind.raw(parameters), result.held(), key);
    }

    private void tell(Characteristic c, Characteristic.ProbeTest test, PathSubject subject, long t0,
                      MeasurementException.Kind failure, Observation kept) {
        java.time.Duration took = java.time.Duration.ofNanos(System.nanoTime() - t0);
        for (TestListener l : listeners) {
            try {
                l.ended(c, test, subject, took, failure, kept);
            } catch (RuntimeException e) {
                LOG.warn("test listener {} failed: {}", l.getClass().getName(), e.toString());
            }
        }
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MeasurementService.class);

    /**
     * What the far end of a test of this characteristic with these parameters must run (a
     * scheduled run to an nmprobe-responder agrees its slot with it first).
     *
     * @throws IllegalArgumentException for parameters that select no test
     */
    public FarEnd farEndOf(Characteristic c, Map<String, String> nmwgParameters) {
        return kinds.get(c.testFor(nmwgParameters)).farEnd();
    }

    /** The responders' control port when a test names none (nmws.responder-port). */
    public int responderPort() {
        return props.responderPort();
    }

    /** The kind that runs a test (for units of its figures, say). */
    public MeasurementKind<?> kind(Characteristic.ProbeTest test) {
        return kinds.get(test);
    }

    private static <T> T parse(Supplier<T> parser) throws MeasurementException {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, e.getMessage());
        }
    }

    /** The engine's reason for a failure, as the error a client sees. */
    static MeasurementException.Kind kindOf(ProbeException.Reason reason) {
        return switch (reason) {
            case BUSY -> MeasurementException.Kind.BUSY;
            case REFUSED -> MeasurementException.Kind.PARAMETER;
            case RESOLVE -> MeasurementException.Kind.SUBJECT;
            case UNAVAILABLE -> MeasurementException.Kind.UNAVAILABLE;
            case CONNECT, TIMEOUT, PROTOCOL, INTERNAL -> MeasurementException.Kind.FAILED;
        };
    }

    /** One request's view of the service, named by the characteristic it measures. */
    private final class Runner implements TestRunner {
        private final Caller caller;
        private final String what;
        private final TestClass testClass;
        private final long waitMillis;
        /** This host as seen from the test's start: a clock step during the test is told in its environment. */
        private final HostEnvironment hostOfTest;

        Runner(Caller caller, String what, TestClass testClass, long waitMillis) {
            this.caller = caller;
            this.what = what;
            this.testClass = testClass;
            this.waitMillis = waitMillis;
            this.hostOfTest = host.forTestFrom(ClockSteps.mark());
        }

        @Override
        public TestClass testClass() {
            return testClass;
        }

        @Override
        public <T> T probe(PathSubject subject, ProbeCall<T> call) throws MeasurementException {
            Interlock.Held held;
            try {
                held = interlock.acquire(testClass, waitMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MeasurementException(MeasurementException.Kind.FAILED, "interrupted waiting for the test interlock");
            }
            if (held == null) {
                throw new MeasurementException(MeasurementException.Kind.BUSY, (testClass == TestClass.EXCLUSIVE
                        ? "other tests run on this host and an exclusive test needs it to itself"
                        : "an exclusive test runs on this host") + "; retry in "
                        + running.secondsUntilAllFree(props.limits().maxDuration()) + " s");
            }
            try (held) {
                return locked(caller, what, testClass, subject, call, waitMillis);
            }
        }

        @Override
        public <T> T passive(String target, PassiveCall<T> call) throws MeasurementException {
            if (caller.budget() != null) {
                caller.budget().take();
            }
            TestAdmission.Slot begun;
            try {
                begun = admission.begin(caller);
            } catch (MeasurementException e) {
                if (caller.budget() != null) {
                    caller.budget().giveBack();
                }
                throw e;
            }
            try (TestAdmission.Slot slot = begun) {
                RunningTests.Entry entry = running.start(what, target, caller.owner(), testClass);
                try {
                    return call.run(entry);
                } finally {
                    running.finish(entry);
                }
            }
        }

        @Override
        public boolean responderAgrees(PathSubject subject, int port) {
            return ResponderConsent.agrees(subject.dst().host(), port > 0 ? port : props.responderPort());
        }

        @Override
        public Engine engine() {
            return engine;
        }

        @Override
        public HostEnvironment host() {
            return hostOfTest;
        }

        @Override
        public String measurementPoint() {
            return measurementPoint;
        }
    }

    /**
     * Runs a probe call with the path's lock held (one test per destination from this
     * point at a time), turning engine failures into measurement errors by their reason.
     */
    private <T> T locked(Caller caller, String what, TestClass testClass, PathSubject subject, TestRunner.ProbeCall<T> call, long waitMillis)
            throws MeasurementException {
        checkSourceIsLocal(subject);
        java.util.Optional<String> unavailable = engine.unavailable();
        if (unavailable.isPresent()) {
            throw new MeasurementException(MeasurementException.Kind.UNAVAILABLE, "the probe engine is not available here: "
                    + unavailable.get());
        }
        String dst = subject.dst().host();
        // permits: tests that are not exclusive share a path up to the limit, an exclusive one takes them all
        int permits = props.limits().sharedTestsPerPath();
        int need = testClass == TestClass.EXCLUSIVE ? permits : 1;
        Semaphore lock = pathLocks.computeIfAbsent(pathKey(dst), k -> pathLock(permits));
        // Charged first, so a client over its rate hears that rather than busy; given back when no
        // test starts (busy path, a parameter the engine refuses).
        if (caller.budget() != null) {
            caller.budget().take(); // the message's share of tests, before its client's rates
        }
        TestAdmission.Slot slot;
        try {
            slot = admission.begin(caller);
        } catch (MeasurementException e) {
            if (caller.budget() != null) {
                caller.budget().giveBack(); // refused on rate: no test started
            }
            throw e;
        }
        // A busy path is answered at once with when to retry: waiting for it held a server
        // thread per request for up to the longest test, and 220 such requests starved the service.
        boolean got;
        try {
            got = take(lock, need, waitMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            got = false;
        }
        if (!got) {
            slot.refund();
            if (caller.budget() != null) {
                caller.budget().giveBack();
            }
            slot.close();
            throw new MeasurementException(MeasurementException.Kind.BUSY, "another test to " + dst
                    + " is running; retry in " + running.secondsUntilFree(dst, props.limits().maxDuration()) + " s");
        }
        RunningTests.Entry entry = running.start(what, dst, caller.owner(), testClass);
        // No test holds a path longer than the limit allows (with a margin for set-up): one
        // that would (a per-hop capacity test against slow routers) is cancelled.
        AtomicBoolean overran = new AtomicBoolean();
        ScheduledFuture<?> overrun = watchdog.schedule(() -> {
            overran.set(true);
            entry.control.cancel();
        }, props.limits().maxDuration().toMillis() + Math.max(10_000, props.limits().maxDuration().toMillis() / 4),
                TimeUnit.MILLISECONDS);
        try {
            TestRunner.Outcome<T> outcome = call.run(entry.control);
            if (outcome.cancelled()) {
                throw new MeasurementException(MeasurementException.Kind.FAILED, "test " + entry.id + " to " + dst
                        + (overran.get() ? " ran past nmws.limits.max-duration (" + props.limits().maxDuration().toSeconds() + " s) and was stopped"
                                : " was cancelled before it ended") + "; nothing was kept");
            }
            return outcome.result();
        } catch (ProbeException e) {
            MeasurementException.Kind kind = kindOf(e.reason());
            if (kind != MeasurementException.Kind.FAILED) {
                slot.refund(); // no test ran: busy, refused or unknown host
                if (caller.budget() != null) {
                    caller.budget().giveBack();
                }
            }
            throw new MeasurementException(kind, e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            slot.refund();
            if (caller.budget() != null) {
                caller.budget().giveBack();
            }
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, e.getMessage(), e);
        } finally {
            slot.close();
            overrun.cancel(false);
            running.finish(entry);
            lock.release(need);
        }
    }

    /**
     * A path's permits: fair, so an exclusive test waiting for all of them (a scheduled run within
     * its grace) is not passed over by a stream of shared ones that each need one (issue 24).
     */
    static Semaphore pathLock(int permits) {
        return new Semaphore(permits, true);
    }

    /**
     * Takes need permits, waiting at most waitMillis. Always timed: Semaphore's untimed
     * tryAcquire barges past waiting threads even when fair; a zero timeout does not.
     */
    static boolean take(Semaphore lock, int need, long waitMillis) throws InterruptedException {
        return lock.tryAcquire(need, Math.max(0, waitMillis), TimeUnit.MILLISECONDS);
    }

    /**
     * The lock of a path is that of the address it leads to, so "localhost", "127.0.0.1" and
     * "LOCALHOST" share one; a name that does not resolve keys by its lower-case self (the
     * test will fail on it anyway).
     */
    static String pathKey(String dst) {
        try {
            return InetAddress.getByName(dst).getHostAddress();
        } catch (UnknownHostException e) {
            return dst.toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * Refuses a destination that is no one host: the unspecified address (which Linux takes
     * for this host), multicast and broadcast. A name that does not resolve is left to the
     * probe, which reports it.
     */
    static void checkIsAHost(String dst) throws MeasurementException {
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(dst);
        } catch (UnknownHostException e) {
            return;
        }
        for (InetAddress a : all) {
            if (a.isAnyLocalAddress() || a.isMulticastAddress() || a.getHostAddress().equals("255.255.255.255")) {
                throw new MeasurementException(MeasurementException.Kind.SUBJECT, "destination " + a.getHostAddress()
                        + " is not a host (unspecified, multicast or broadcast)");
            }
        }
    }

    /** A measurement point measures from itself: a src, when given, must be one of this host's addresses. */
    public static void checkSourceIsLocal(PathSubject subject) throws MeasurementException {
        if (subject.src() == null) {
            return;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(subject.src().host())) {
                if (a.isLoopbackAddress() || NetworkInterface.getByInetAddress(a) != null) {
                    return;
                }
            }
        } catch (UnknownHostException | SocketException e) {
            throw new MeasurementException(MeasurementException.Kind.SUBJECT, "src " + subject.src().host()
                    + " cannot be resolved: " + e.getMessage());
        }
        throw new MeasurementException(MeasurementException.Kind.SUBJECT, "src " + subject.src().host()
                + " is not an address of this measurement point; a test runs from the host that is asked");
    }

    public static Instant instant(long epochNanos) {
        return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
    }
}
