package org.nmws.service.measure;

import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.nmws.probe.AvailableBandwidthResult;
import org.nmws.probe.AvailableBandwidthSpec;
import org.nmws.probe.CapacityResult;
import org.nmws.probe.CapacitySpec;
import org.nmws.probe.HopCapacityResult;
import org.nmws.probe.HopCapacitySpec;
import org.nmws.probe.HopListResult;
import org.nmws.probe.HopListSpec;
import org.nmws.probe.LatencyScanResult;
import org.nmws.probe.LatencyScanSpec;
import org.nmws.probe.Probe;
import org.nmws.probe.ProbeControl;
import org.nmws.probe.ProbeException;
import org.nmws.probe.RoundTripResult;
import org.nmws.probe.RoundTripSpec;
import org.nmws.probe.TcpStreamResult;
import org.nmws.probe.TcpStreamSpec;
import org.nmws.probe.UdpStreamResult;
import org.nmws.probe.UdpStreamSpec;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tests on request: checks the subject, takes the path's lock (one test per
 * destination at a time from this point), calls the probe engine over JNI, records the
 * environment and keeps the result in the archive before anyone sees it.
 */
public class MeasurementService {
    private static final Logger log = LoggerFactory.getLogger(MeasurementService.class);
    public static final String TOOL = "nmprobe";
    private static final int HISTOGRAM_BINS = 50;

    private final Archive archive;
    private final HostEnvironment host;
    private final NmwsProperties props;
    private final String measurementPoint;
    private final Map<String, Semaphore> pathLocks = new ConcurrentHashMap<>();
    /** Cancels tests that run past the duration limit; one daemon thread for the whole service. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nmws-test-watchdog");
        t.setDaemon(true);
        return t;
    });
    private final RunningTests running;
    private final TestAdmission admission;

    public MeasurementService(Archive archive, HostEnvironment host, NmwsProperties props, RunningTests running,
                              TestAdmission admission) {
        this.admission = admission;
        this.archive = archive;
        this.running = running;
        this.host = host;
        this.props = props;
        this.measurementPoint = props.measurementPoint().isBlank() ? host.hostName() : props.measurementPoint();
    }

    public String measurementPoint() {
        return measurementPoint;
    }

    /** A result as kept, and whether the client asked for per-frame data. */
    public record Measured(Observation observation, boolean raw) {
    }

    /**
     * Runs the test that measures a characteristic, with NMWG parameters, and archives it.
     * The one entry point for every dialect: adding a characteristic means a case here.
     */
    public Measured measure(Characteristic c, PathSubject subject, Map<String, String> nmwgParameters)
            throws MeasurementException {
        // Who may test is settled before the request is looked at; the rate is charged only
        // when a test is about to start (see locked), so a typo or a busy path costs nothing.
        admission.authorize(TestAdmission.currentClient());
        return switch (parse(() -> c.testFor(nmwgParameters))) {
            case ROUND_TRIP -> {
                RoundTripParameters p = roundTripParameters(nmwgParameters);
                yield new Measured(roundTrip(c, subject, p), p.raw());
            }
            case LATENCY_SCAN -> new Measured(latencyScan(c, subject, parse(() -> ScanParameters.parse(nmwgParameters,
                    props.responderPort(), props.limits().maxCount(), props.limits().maxDuration()))), false);
            case TCP_STREAM -> {
                TcpParameters p = parse(() -> TcpParameters.parse(nmwgParameters, c, props.responderPort(),
                        props.limits().maxDuration()));
                yield new Measured(tcpStream(c, subject, p), p.raw());
            }
            case HOP_LIST -> {
                HopParameters p = parse(() -> HopParameters.parse(nmwgParameters, props.limits().maxDuration()));
                yield new Measured(hopList(c, subject, p), true);
            }
            case UTILIZATION -> new Measured(utilization(c, subject, parse(() -> UtilizationParameters.parse(nmwgParameters,
                    props.limits().maxDuration()))), true);
            case CAPACITY -> {
                BandwidthParameters p = parse(() -> BandwidthParameters.capacity(nmwgParameters, props.responderPort(),
                        props.limits().maxCount()));
                String dst = subject.dst().host();
                CapacityResult r = locked(c.dottedName(), subject, control -> {
                    CapacityResult result = Probe.capacity(new CapacitySpec(dst, p.port(), p.trains(), p.trainLength(),
                            p.packetSize(), 0, 0, 500_000_000L, 0), control);
                    return new Outcome<>(result, result.cancelled());
                });
                yield new Measured(archive.save(BandwidthObservations.capacity(subject, p, r, measurementPoint, host)), false);
            }
            case HOP_CAPACITY -> {
                HopCapacityParameters p = parse(() -> HopCapacityParameters.parse(nmwgParameters, props.limits().maxCount()));
                String dst = subject.dst().host();
                HopCapacityResult r = locked(c.dottedName(), subject, control -> {
                    HopCapacitySpec d = HopCapacitySpec.defaults(dst);
                    HopCapacityResult result = Probe.hopCapacity(new HopCapacitySpec(dst, 0, p.maxTtl(), p.trains(),
                            p.trainLength(), -1, p.packetSize(), d.gapNanos(), d.waitNanos(), d.firstPort()), control);
                    return new Outcome<>(result, result.cancelled());
                });
                yield new Measured(archive.save(BandwidthObservations.perHop(subject, p, r, measurementPoint, host)), false);
            }
            case AVAILABLE -> {
                BandwidthParameters p = parse(() -> BandwidthParameters.available(nmwgParameters, props.responderPort(),
                        props.limits().maxDuration()));
                String dst = subject.dst().host();
                AvailableBandwidthResult r = locked(c.dottedName(), subject, control -> {
                    AvailableBandwidthSpec d = AvailableBandwidthSpec.defaults(dst, p.maxMbps());
                    AvailableBandwidthResult result = Probe.availableBandwidth(new AvailableBandwidthSpec(dst, p.port(),
                            p.packetSize(), d.minMbps(), d.maxMbps(), d.stepMbps(), d.refine(), Math.round(p.stepSeconds() * 1e9),
                            d.pauseNanos(), d.lossPercent(), d.rateTolerance(), d.delayThresholdNanos(), d.timeoutNanos(),
                            d.ttl()), control);
                    return new Outcome<>(result, result.cancelled());
                });
                yield new Measured(archive.save(BandwidthObservations.available(subject, p, r, measurementPoint, host)), false);
            }
            case UDP_STREAM -> {
                StreamParameters p = parse(() -> StreamParameters.parse(nmwgParameters, props.responderPort(),
                        props.limits().maxCount(), props.limits().maxDuration()));
                yield new Measured(udpStream(c, subject, p), p.raw());
            }
        };
    }

    RoundTripParameters roundTripParameters(Map<String, String> nmwgParameters) throws MeasurementException {
        return parse(() -> RoundTripParameters.parse(nmwgParameters, props.responderPort(), props.limits().maxCount(),
                props.limits().maxDuration()));
    }

    private static <T> T parse(java.util.function.Supplier<T> parser) throws MeasurementException {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, e.getMessage());
        }
    }

    /** Runs a round-trip test from this host to the subject's dst and archives it. */
    Observation roundTrip(Characteristic c, PathSubject subject, RoundTripParameters p) throws MeasurementException {
        String dst = subject.dst().host();
        RoundTripResult r = locked(c.dottedName(), subject, control -> {
            log.info("round-trip test to {}:{} count={} size={} interval={}s", dst, p.port(), p.count(),
                    p.packetSize(), p.intervalSeconds());
            RoundTripResult result = Probe.roundTrip(new RoundTripSpec(dst, p.port(), p.count(), p.packetSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ttl()), control);
            return new Outcome<>(result, result.cancelled());
        });
        return archive.save(toObservation(subject, p, r));
    }

    /** Runs round trips over a list of frame sizes (latency vs frame size) and archives the fit. */
    Observation latencyScan(Characteristic c, PathSubject subject, ScanParameters p) throws MeasurementException {
        String dst = subject.dst().host();
        java.util.concurrent.atomic.AtomicReference<Instant> started = new java.util.concurrent.atomic.AtomicReference<>();
        LatencyScanResult r = locked(c.dottedName(), subject, control -> {
            started.set(Instant.now()); // the engine stamps no start for a scan: take it here, after the lock
            log.info("latency scan to {}:{} sizes={} count={}", dst, p.port(), p.asNmwg().get(ScanParameters.SIZES),
                    p.countPerSize());
            LatencyScanResult result = Probe.latencyScan(new LatencyScanSpec(dst, p.port(), p.sizes(), p.countPerSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ttl(), HISTOGRAM_BINS),
                    control);
            return new Outcome<>(result, result.cancelled());
        });
        return archive.save(ScanObservations.of(subject, p, r, measurementPoint, host, started.get(), Instant.now()));
    }

    /** Runs TCP streams from this host to the subject's responder and archives the result. */
    Observation tcpStream(Characteristic c, PathSubject subject, TcpParameters p) throws MeasurementException {
        String dst = subject.dst().host();
        TcpStreamResult r = locked(c.dottedName(), subject, control -> {
            log.info("TCP test to {}:{} streams={} duration={}s", dst, p.port(), p.streams(), p.durationSeconds());
            TcpStreamResult result = Probe.tcpStream(new TcpStreamSpec(dst, p.port(), p.streams(), p.messageSize(),
                    Math.round(p.intervalSeconds() * 1e9), p.cbr(), p.windowBytes(), Math.round(p.durationSeconds() * 1e9),
                    0, Math.round(p.sampleSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9)), control);
            return new Outcome<>(result, result.cancelled());
        });
        return archive.save(TcpObservations.of(subject, p, r, measurementPoint, host));
    }

    /** Traces the route from this host to the subject's dst and archives it. */
    Observation hopList(Characteristic c, PathSubject subject, HopParameters p) throws MeasurementException {
        String dst = subject.dst().host();
        Instant start = Instant.now();
        HopListResult r = locked(c.dottedName(), subject, control -> {
            log.info("hop list to {} maxTtl={}", dst, p.maxTtl());
            HopListResult result = Probe.hopList(new HopListSpec(dst, p.maxTtl(), p.probesPerHop(),
                    Math.round(p.waitSeconds() * 1e9), 33434, p.packetSize(), 16, p.resolve(), 500_000_000L), control);
            return new Outcome<>(result, result.cancelled());
        });
        return archive.save(HopObservations.of(subject, p, r, measurementPoint, host, start, Instant.now()));
    }

    /**
     * Samples an interface's counters every interval for the duration (passive: nothing is
     * sent), as an SNMP MA collects IF-MIB counters. The subject's dst names the interface.
     */
    Observation utilization(Characteristic c, PathSubject subject, UtilizationParameters p) throws MeasurementException {
        String ifName;
        try {
            ifName = InterfaceCounters.checkName(subject.dst().host());
        } catch (IllegalArgumentException e) {
            throw new MeasurementException(MeasurementException.Kind.SUBJECT, e.getMessage());
        }
        int intervals = (int) Math.max(1, Math.round(p.durationSeconds() / p.intervalSeconds()));
        long step = Math.round(p.intervalSeconds() * 1e9);
        List<InterfaceCounters.Sample> samples = new ArrayList<>(intervals + 1);
        admission.charge(TestAdmission.currentClient());
        RunningTests.Entry entry = running.start(c.dottedName(), ifName);
        try {
            samples.add(InterfaceCounters.read(ifName));
            long start = samples.get(0).monoNanos();
            for (int i = 1; i <= intervals && !entry.control.isCancelled(); i++) {
                entry.done.set(i - 1);
                entry.total.set(intervals);
                long wait = start + i * step - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                samples.add(InterfaceCounters.read(ifName));
            }
        } catch (java.io.IOException e) {
            throw new MeasurementException(MeasurementException.Kind.FAILED, "reading the counters of " + ifName + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MeasurementException(MeasurementException.Kind.FAILED, "interrupted sampling " + ifName);
        } finally {
            running.finish(entry);
        }
        if (entry.control.isCancelled()) {
            throw new MeasurementException(MeasurementException.Kind.FAILED, "test " + entry.id + " on " + ifName
                    + " was cancelled before it ended; nothing was kept");
        }
        return archive.save(UtilizationObservations.of(subject, ifName, p, samples, InterfaceCounters.speedMbps(ifName),
                measurementPoint, host));
    }

    /** Runs a UDP stream from this host to the subject's dst and archives it. */
    Observation udpStream(Characteristic c, PathSubject subject, StreamParameters p) throws MeasurementException {
        String dst = subject.dst().host();
        UdpStreamResult r = locked(c.dottedName(), subject, control -> {
            log.info("UDP stream to {}:{} count={} size={} interval={}s", dst, p.port(), p.count(),
                    p.packetSize(), p.intervalSeconds());
            UdpStreamResult result = Probe.udpStream(new UdpStreamSpec(dst, p.port(), p.count(), p.packetSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ttl(),
                    HISTOGRAM_BINS, 0), control);
            return new Outcome<>(result, result.cancelled());
        });
        return archive.save(StreamObservations.of(subject, p, r, measurementPoint, host));
    }

    /** What a probe call gave, and whether it was cancelled before the end. */
    private record Outcome<T>(T result, boolean cancelled) {
    }

    private interface ProbeCall<T> {
        Outcome<T> run(ProbeControl control);
    }

    /**
     * Runs a probe call with the path's lock held (one test per destination from this
     * point at a time), turning engine failures into measurement errors.
     */
    private <T> T locked(String what, PathSubject subject, ProbeCall<T> call) throws MeasurementException {
        checkSourceIsLocal(subject);
        if (!Probe.isAvailable()) {
            throw new MeasurementException(MeasurementException.Kind.UNAVAILABLE, "the probe engine is not available here: "
                    + Probe.unavailabilityCause().map(Throwable::getMessage).orElse("unknown cause"));
        }
        String dst = subject.dst().host();
        Semaphore lock = pathLocks.computeIfAbsent(pathKey(dst), k -> new Semaphore(1));
        long waitSeconds = props.limits().maxDuration().toSeconds();
        // Charged before waiting, so a client over its rate is refused at once rather than after
        // the wait; given back when no test starts (busy path, a parameter the engine refuses).
        String client = TestAdmission.currentClient();
        admission.charge(client);
        try {
            if (!lock.tryAcquire(waitSeconds, TimeUnit.SECONDS)) {
                admission.refund(client);
                throw new MeasurementException(MeasurementException.Kind.BUSY,
                        "another test to " + dst + " has held the path for over " + waitSeconds + " s; retry later");
            }
        } catch (InterruptedException e) {
            admission.refund(client);
            Thread.currentThread().interrupt();
            throw new MeasurementException(MeasurementException.Kind.FAILED, "interrupted waiting for the path to " + dst);
        }
        RunningTests.Entry entry = running.start(what, dst);
        // No test holds a path longer than the limit allows (with a margin for set-up): one
        // that would (a per-hop capacity test against slow routers) is cancelled.
        AtomicBoolean overran = new AtomicBoolean();
        ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
            overran.set(true);
            entry.control.cancel();
        }, props.limits().maxDuration().toMillis() + Math.max(10_000, props.limits().maxDuration().toMillis() / 4),
                TimeUnit.MILLISECONDS);
        try {
            Outcome<T> outcome = call.run(entry.control);
            if (outcome.cancelled()) {
                throw new MeasurementException(MeasurementException.Kind.FAILED, "test " + entry.id + " to " + dst
                        + (overran.get() ? " ran past nmws.limits.max-duration (" + waitSeconds + " s) and was stopped"
                                : " was cancelled before it ended") + "; nothing was kept");
            }
            return outcome.result();
        } catch (ProbeException e) {
            throw new MeasurementException(MeasurementException.Kind.FAILED, e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            admission.refund(client);
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, e.getMessage(), e);
        } finally {
            watchdog.cancel(false);
            running.finish(entry);
            lock.release();
        }
    }

    private Observation toObservation(PathSubject subject, RoundTripParameters p, RoundTripResult r) {
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("minRtt", r.minRttMs());
        s.put("meanRtt", r.meanRttMs());
        s.put("medianRtt", r.medianRttMs());
        s.put("maxRtt", r.maxRttMs());
        s.put("lossPercent", r.lossPercent());
        s.put("sent", (double) r.sent());
        s.put("received", (double) r.received());
        s.put("duplicates", (double) r.duplicates());
        s.put("outOfOrder", (double) r.outOfOrder());
        s.put("minIpd", r.minIpdMs());
        s.put("meanIpd", r.meanIpdMs());
        s.put("maxIpd", r.maxIpdMs());
        s.put("iqrIpd", r.iqrIpdMs());
        s.values().removeIf(v -> v == null || v.isNaN());
        int[] seq = r.seq(); // the accessors copy: take each array once
        long[] sent = r.sendEpochNanos();
        long[] rtt = r.rttNanos();
        int[] bytes = r.bytes();
        int[] ttl = r.ttl();
        List<Observation.Frame> frames = new ArrayList<>(seq.length);
        for (int i = 0; i < seq.length; i++) {
            frames.add(new Observation.Frame(seq[i], sent[i], rtt[i], bytes[i], ttl[i]));
        }
        Environment env = new Environment(host.describe("src", r.localAddress()),
                Environment.Host.remote(subject.dst().host(), r.remoteAddress()));
        return new Observation(0, measurementPoint, Characteristic.ProbeTest.ROUND_TRIP, subject,
                r.localAddress(), r.remoteAddress(), TOOL, Probe.version(), p.asNmwg(), env,
                instant(r.startEpochNanos()), instant(r.endEpochNanos()), s, frames);
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

    /** A measurement point measures from itself: a src, when given, must be one of this host's addresses. */
    static void checkSourceIsLocal(PathSubject subject) throws MeasurementException {
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

    static Instant instant(long epochNanos) {
        return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
    }
}
