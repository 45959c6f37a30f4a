package org.nmws.service.kind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.probe.TcpStreamResult;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * A TCP test as an observation: total and per-stream throughput, retransmits, what
 * TCP_INFO showed over the test (the web100 figures), CBR lateness when messages ran on
 * a schedule, and the per-stream time series as frames (seq = bin, ttl = stream,
 * bytes = bytes received in the bin, value = the bin's length).
 */
final class TcpObservations {
    private TcpObservations() {
    }

    /**
     * The largest lateness of messages scheduled after the first second: slow start makes
     * every CBR run late at first, and what users look for is TCP falling behind later,
     * after a loss.
     */
    static double steadyMaxLatenessMs(TcpStreamResult.Lateness l) {
        long[] scheduled = l.scheduledEpochNanos();
        long[] late = l.latenessNanos();
        long first = Long.MAX_VALUE;
        for (long t : scheduled) {
            first = Math.min(first, t);
        }
        long max = Long.MIN_VALUE;
        for (int i = 0; i < scheduled.length; i++) {
            if (scheduled[i] - first >= 1_000_000_000L) {
                max = Math.max(max, late[i]);
            }
        }
        return max == Long.MIN_VALUE ? Double.NaN : max / 1e6;
    }

    static Observation of(PathSubject subject, TcpParameters p, TcpStreamResult r, TestRunner runner) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        Map<String, Double> s = TcpStreamKind.FIGURES.summary(r);
        // What held the senders back while data was in flight (TCP_INFO, Linux 4.10+): the
        // receiver's window, the send buffer, else the congestion window (loss, or the path).
        long busy = 0, rwnd = 0, sndbuf = 0;
        for (TcpStreamResult.PerStream ps : r.perStream()) {
            busy += ps.busyMicros();
            rwnd += ps.rwndLimitedMicros();
            sndbuf += ps.sndbufLimitedMicros();
        }
        if (busy > 0) {
            s.put("rwndLimitedPercent", 100.0 * rwnd / busy);
            s.put("sndbufLimitedPercent", 100.0 * sndbuf / busy);
            s.put("cwndLimitedPercent", 100.0 * Math.max(0, busy - rwnd - sndbuf) / busy);
        }
        TcpStreamResult.TcpInfoSamples ti = r.tcpInfo();
        if (ti.size() > 0) {
            int[] cwnd = ti.cwndSegments();
            int[] srtt = ti.srttMicros();
            int[] rttvar = ti.rttvarMicros();
            long[] delivery = ti.deliveryRateBytesPerSecond();
            long maxCwnd = 0;
            long maxRttvar = 0;
            double srttSum = 0;
            long maxDelivery = 0;
            for (int i = 0; i < ti.size(); i++) {
                maxCwnd = Math.max(maxCwnd, cwnd[i]);
                maxRttvar = Math.max(maxRttvar, rttvar[i]);
                srttSum += srtt[i];
                maxDelivery = Math.max(maxDelivery, delivery[i]);
            }
            s.put("tcpInfoSamples", (double) ti.size());
            s.put("maxCwndSegments", (double) maxCwnd);
            s.put("meanSrttUs", srttSum / ti.size());
            s.put("maxRttvarUs", (double) maxRttvar);
            s.put("maxDeliveryRateMbps", maxDelivery * 8 / 1e6);
        }
        if (p.cbr() && r.lateness() != null && r.lateness().size() > 0) {
            TcpStreamResult.Lateness l = r.lateness();
            s.put("messages", (double) l.size());
            FigureTable.put(s, "minLatenessMs", l.minMs());
            FigureTable.put(s, "medianLatenessMs", l.medianMs());
            FigureTable.put(s, "p99LatenessMs", l.p99Ms());
            FigureTable.put(s, "maxLatenessMs", l.maxMs());
            FigureTable.put(s, "steadyMaxLatenessMs", steadyMaxLatenessMs(l));
        }

        TcpStreamResult.TimeSeries ts = r.series();
        List<Observation.Frame> frames = new ArrayList<>();
        int streams = ts.bins() == 0 ? 0 : ts.bytes().length / ts.bins();
        for (int st = 0; st < streams; st++) {
            for (int b = 0; b < ts.bins(); b++) {
                frames.add(new Observation.Frame((long) st * ts.bins() + b, ts.startEpochNanos() + b * ts.binNanos(),
                        ts.binNanos(), ts.bytes(st, b), st));
            }
        }
        Map<String, long[]> samples = new LinkedHashMap<>();
        if (ti.size() > 0) {
            // Every TCP_INFO sample, raw, as web100 once logged them: time, stream and the state.
            samples.put("offsetNs", ti.offsetNanos());
            samples.put("stream", widen(ti.stream()));
            samples.put("cwndSegments", widen(ti.cwndSegments()));
            samples.put("mssBytes", widen(ti.mssBytes()));
            samples.put("srttUs", widen(ti.srttMicros()));
            samples.put("rttvarUs", widen(ti.rttvarMicros()));
            samples.put("retransmits", widen(ti.retransmits()));
            samples.put("totalRetrans", widen(ti.totalRetrans()));
            samples.put("pacingRateBytesPerSecond", ti.pacingRateBytesPerSecond());
            samples.put("deliveryRateBytesPerSecond", ti.deliveryRateBytesPerSecond());
            samples.put("bytesAcked", ti.bytesAcked());
        }
        Environment env = new Environment(host.describe("src", r.localAddress()),
                Environment.Host.remote(subject.dst().host(), r.remoteAddress()));
        // the congestion control the streams ran with, asked for or the system's default:
        // BBR and CUBIC read one lossy path very differently
        Map<String, String> parameters = new LinkedHashMap<>(p.asNmwg());
        if (r.congestionControl() != null && !r.congestionControl().isEmpty()) {
            parameters.put("congestionControl", r.congestionControl());
        }
        return new Observation(0, point, Characteristic.ProbeTest.TCP_STREAM, subject, r.localAddress(), r.remoteAddress(),
                MeasurementService.TOOL, runner.engine().version(), parameters, env,
                MeasurementService.instant(r.startEpochNanos()), MeasurementService.instant(r.endEpochNanos()), s, frames,
                samples);
    }

    private static long[] widen(int[] v) {
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i];
        }
        return out;
    }
}
