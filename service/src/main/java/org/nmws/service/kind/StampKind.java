package org.nmws.service.kind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.probe.StampResult;
import org.nmws.probe.StampSpec;
import org.nmws.service.measure.FarEnd;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Params;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * Round trip and both one-way delays to a standard STAMP (RFC 8762) or TWAMP-Light reflector
 * (routers, other tools, nmprobe-responder --stamp-port), asked for as delay or loss with
 * protocol=STAMP. No nmws responder is needed at the far end; a host that reflects nothing
 * gets three packets and the request an error. One-way figures come with their uncertainty,
 * the sum of both ends' stated clock errors. authMode=authenticated with keyId runs RFC 8762's
 * authenticated mode with that key of the service's key file (nmws.key-file); the
 * client names the key, never sends it.
 */
final class StampKind implements MeasurementKind<StampKind.Parameters> {
    /** The key ids a client may name: what an owampd pfs file holds (OWAMP's 80-octet KeyID). */
    private static final java.util.regex.Pattern KEY_ID = java.util.regex.Pattern.compile("[\\x21-\\x7e]{1,80}");

    private final java.util.function.BooleanSupplier keysConfigured;

    /** The kind as the service runs it: authenticated mode needs the engine's STAMP key file. */
    StampKind() {
        this(org.nmws.probe.Probe::hasStampKeys);
    }

    /** With the answer to "is a STAMP key file configured" given (tests). */
    StampKind(java.util.function.BooleanSupplier keysConfigured) {
        this.keysConfigured = keysConfigured;
    }

    private static final FigureTable<StampResult> FIGURES = new FigureTable<>(StampResult.class)
            .of(Unit.MILLISECONDS, "minRtt=minRttMs", "medianRtt=medianRttMs", "meanRtt=meanRttMs", "p99Rtt=p99RttMs",
                    "maxRtt=maxRttMs")
            .of(Unit.PERCENT, "lossPercent")
            .of(Unit.NONE, "sent", "received", "duplicates")
            // Loss on the way there is known only from the reflector's numbering. A stateless
            // reflector echoes the sender's sequence numbers (RFC 8762 4.2.1): a packet lost on the
            // way there and one lost on the way back look alike, and the engine's count from it is
            // always 0. A stateful one numbers what it received (4.2.2), so a gap shows forward
            // loss; without one its numbers are the sender's too, and the two cannot be told
            // apart. So the split is kept when the numbering shows a gap or nothing was lost, and
            // left out otherwise rather than stated as 0.
            .onlyIf(r -> r.forwardLost() > 0 || r.lost() == 0, Unit.NONE, "forwardLost")
            .of(Unit.MILLISECONDS, "minForwardMs", "medianForwardMs", "maxForwardMs", "minBackwardMs", "medianBackwardMs",
                    "maxBackwardMs", "senderErrorMs", "reflectorErrorMs", "oneWayUncertaintyMs")
            .of(Unit.NONE, "reflectorSynchronised")
            .computed(Unit.NONE, "authFailed") // answers dropped in authenticated mode: their HMAC did not verify
            .headline("medianRtt", "rttMs", "RTT")
            .headline("lossPercent", "lossPercent", "loss")
            .chart("medianRtt", "rttMs", "STAMP")
            .chart("medianForwardMs", "owdMs", "STAMP forward")
            .chart("lossPercent", "lossPercent", "STAMP");

    /**
     * The parameters by NMWG name: count, packetSize (44..9000 UDP payload bytes; 112..9000
     * authenticated), interval and timeout (seconds), port (the reflector's UDP port, 862 by
     * default), ssid (RFC 8972), timestamp (NTP or PTP), ttl, raw, and authMode (open, the
     * default, or authenticated) with keyId (the id of a key in the service's key file).
     *
     * @param keyId null in unauthenticated mode
     */
    record Parameters(int count, int packetSize, double intervalSeconds, double timeoutSeconds, int port, int ssid,
                      boolean ptp, int ttl, boolean raw, String keyId) {

        /** Every parameter name the test reads (protocol: STAMP or TWAMP chose it). */
        static final java.util.Set<String> READS = java.util.Set.of("count", "packetSize", "interval", "timeout", "port",
                "ssid", "timestamp", "ttl", "protocol", "authMode", "keyId");

        static Parameters parse(Map<String, String> p, int maxCount, Duration maxDuration) {
            return parse(p, maxCount, maxDuration, true);
        }

        static Parameters parse(Map<String, String> p, int maxCount, Duration maxDuration, boolean keysConfigured) {
            ParameterNames.check(p, "STAMP", READS);
            String keyId = keyId(p, keysConfigured);
            int minSize = keyId == null ? StampSpec.MIN_SIZE : StampSpec.MIN_AUTH_SIZE;
            int count = Params.integer(p, "count", 10, 1, Math.min(maxCount, StampSpec.MAX_COUNT));
            int size = Params.integer(p, "packetSize", minSize, minSize, StampSpec.MAX_SIZE);
            double interval = Params.decimal(p, "interval", 0.1, 0.0, 60.0);
            double timeout = Params.decimal(p, "timeout", 1.0, 0.001, 60.0);
            int port = Params.integer(p, "port", StampSpec.DEFAULT_PORT, 1, 65535);
            int ssid = Params.integer(p, "ssid", 1, 0, 65535);
            String ts = p.getOrDefault("timestamp", "NTP").trim();
            if (!ts.equalsIgnoreCase("NTP") && !ts.equalsIgnoreCase("PTP")) {
                throw new IllegalArgumentException("parameter 'timestamp' is '" + ts + "': expected NTP or PTP");
            }
            int ttl = Params.integer(p, "ttl", 0, 0, 255);
            Params.withinDuration(count * interval + timeout, maxDuration, "count %d x interval %.3f s + timeout %.3f s",
                    count, interval, timeout);
            return new Parameters(count, size, interval, timeout, port, ssid, ts.equalsIgnoreCase("PTP"), ttl,
                    Params.bool(p, "raw"), keyId);
        }

        /** The key id of authMode=authenticated, or null for open; refuses every other combination. */
        private static String keyId(Map<String, String> p, boolean keysConfigured) {
            String mode = p.getOrDefault("authMode", "open").trim();
            String keyId = p.get("keyId");
            if (mode.equalsIgnoreCase("open") || mode.equalsIgnoreCase("unauthenticated")) {
                if (keyId != null) {
                    throw new IllegalArgumentException("parameter keyId is given without authMode=authenticated");
                }
                return null;
            }
            if (!mode.equalsIgnoreCase("authenticated")) {
                throw new IllegalArgumentException("parameter authMode is '" + Params.echo(mode)
                        + "': expected open or authenticated (STAMP has no encrypted mode)");
            }
            if (keyId == null || !KEY_ID.matcher(keyId.trim()).matches()) {
                throw new IllegalArgumentException("parameter keyId " + (keyId == null ? "is missing" : "is '"
                        + Params.echo(keyId) + "'") + ": authMode=authenticated names a key of this service's key file"
                        + " by its id (1..80 printable characters without spaces)");
            }
            if (!keysConfigured) {
                throw new IllegalArgumentException("authMode=authenticated: this service has no STAMP key file"
                        + " (nmws.key-file)");
            }
            return keyId.trim();
        }

        Map<String, String> asNmwg() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("count", Integer.toString(count));
            m.put("packetSize", Integer.toString(packetSize));
            m.put("interval", Params.plain(intervalSeconds));
            m.put("timeout", Params.plain(timeoutSeconds));
            m.put("port", Integer.toString(port));
            m.put("ssid", Integer.toString(ssid));
            m.put("timestamp", ptp ? "PTP" : "NTP");
            m.put("ttl", Integer.toString(ttl));
            m.put("protocol", "STAMP");
            if (keyId != null) { // open runs keep the parameters they always had, so their series stay one
                m.put("authMode", "authenticated");
                m.put("keyId", keyId);
            }
            return m;
        }
    }

    /** One small packet per interval, reflected: light in either direction. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.BACKGROUND;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.STAMP;
    }

    @Override
    public Parameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return Parameters.parse(nmwg, c.limits().maxCount(), c.limits().maxDuration(), keysConfigured.getAsBoolean());
    }

    @Override
    public boolean raw(Parameters p) {
        return p.raw();
    }

    @Override
    public Observation run(Parameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        StampResult r = runner.probe(subject, control -> {
            StampResult result = runner.engine().run(new StampSpec(dst, p.port(), p.count(), p.packetSize(),
                    Math.round(p.intervalSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.ssid(), p.ptp(),
                    p.ttl(), 1_000_000_000L, p.keyId()), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        Map<String, Double> s = FIGURES.summary(r);
        if (p.keyId() != null) {
            s.put("authFailed", (double) r.authFailed());
        }
        StampResult.Frames f = r.frames();
        long[] send = f.sendEpochNanos();
        long[] rtt = f.rttNanos();
        int[] ttl = f.replyTtl();
        List<Observation.Frame> frames = new ArrayList<>(f.size());
        for (int i = 0; i < f.size(); i++) {
            frames.add(new Observation.Frame(i, send[i], rtt[i] < 0 ? Observation.Frame.LOST : rtt[i], p.packetSize(),
                    ttl[i]));
        }
        Environment env = new Environment(runner.host().describe("src", r.localAddress()),
                Environment.Host.remote(dst, r.remoteAddress()));
        return new Observation(0, runner.measurementPoint(), ProbeTest.STAMP, subject, r.localAddress(),
                r.remoteAddress(), MeasurementService.TOOL, runner.engine().version(), p.asNmwg(), env,
                MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s, frames);
    }

    @Override
    public Unit unit(String figure) {
        return FIGURES.unit(figure);
    }

    @Override
    public List<Figure> figures() {
        return FIGURES.figures();
    }

    @Override
    public FarEnd farEnd() {
        return FarEnd.STAMP_REFLECTOR;
    }
}
