package org.nmws.service.kind;

import org.nmws.service.measure.TestClass;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.nmws.probe.Probe;
import org.nmws.probe.TcpStreamResult;
import org.nmws.probe.TcpStreamSpec;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.nmwg.DataForm;
import org.nmws.service.nmwg.NmwgData;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * TCP throughput with one or more streams (TCPstream's lineage): the iperf datum bwctl
 * clients read, one per time-series bin and the TCP_INFO samples when raw, and figures.
 */
final class TcpStreamKind implements MeasurementKind<TcpParameters>, DataForm {
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MBIT_PER_SECOND, "throughputMbps", "sendMbps", "maxDeliveryRateMbps")
            .of(Unit.MICROSECONDS, "meanSrttUs", "maxRttvarUs")
            .of(Unit.MILLISECONDS, "minLatenessMs", "medianLatenessMs", "p99LatenessMs", "maxLatenessMs",
                    "steadyMaxLatenessMs")
            .of(Unit.PERCENT, "rwndLimitedPercent", "sndbufLimitedPercent", "cwndLimitedPercent")
            .family(Unit.MBIT_PER_SECOND, "stream\\d+ThroughputMbps")
            .family(Unit.MICROSECONDS, "stream\\d+FinalSrttUs");

    /** Fills the path: anything else would bias it and be biased. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.EXCLUSIVE;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.TCP_STREAM;
    }

    @Override
    public TcpParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return TcpParameters.parse(nmwg, characteristic, c.responderPort(), c.limits().maxDuration());
    }

    @Override
    public boolean raw(TcpParameters p) {
        return p.raw();
    }

    @Override
    public Observation run(TcpParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        TcpStreamResult r = runner.probe(subject, control -> {
            TcpStreamResult result = Probe.tcpStream(new TcpStreamSpec(dst, p.port(), p.streams(), p.messageSize(),
                    Math.round(p.intervalSeconds() * 1e9), p.cbr(), p.windowBytes(), Math.round(p.durationSeconds() * 1e9),
                    0, Math.round(p.sampleSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.congestion()), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return TcpObservations.of(subject, p, r, runner.measurementPoint(), runner.host());
    }

    @Override
    public Unit unit(String figure) {
        return UNITS.unit(figure);
    }

    @Override
    public void write(NmwgData out, Observation o, boolean raw) {
        org.nmws.schema.iperf.Datum total = new org.nmws.schema.iperf.Datum();
        total.setTimeType("unix");
        total.setTimeValue(NmwgData.unixTime(o.start()));
        Double mbps = o.summary().get("throughputMbps");
        if (mbps != null) {
            total.setThroughput(NmwgData.significant(mbps * 1e6));
        }
        out.add(total);
        if (raw) {
            Map<Long, long[]> bins = new TreeMap<>(); // bin start -> {bytes over streams, bin length}
            for (Observation.Frame f : o.frames()) {
                long[] b = bins.computeIfAbsent(f.sendEpochNanos(), k -> new long[2]);
                b[0] += f.bytes();
                b[1] = f.valueNanos();
            }
            long first = bins.isEmpty() ? 0 : bins.keySet().iterator().next();
            for (Map.Entry<Long, long[]> e : bins.entrySet()) {
                org.nmws.schema.iperf.Datum d = new org.nmws.schema.iperf.Datum();
                d.setTimeType("unix");
                d.setTimeValue(NmwgData.unixTime(e.getKey()));
                double from = (e.getKey() - first) / 1e9;
                d.setInterval(String.format(Locale.ROOT, "%.3f-%.3f", from, from + e.getValue()[1] / 1e9));
                d.setThroughput(NmwgData.significant(e.getValue()[0] * 8e9 / e.getValue()[1]));
                out.add(d);
            }
            tcpInfo(out, o);
        }
        out.figures(o, this::unit);
    }

    /** The raw TCP_INFO samples of a TCP test, one element each. */
    private static void tcpInfo(NmwgData out, Observation o) {
        Map<String, long[]> s = o.samples();
        long[] offset = s.get("offsetNs");
        if (offset == null) {
            return;
        }
        long start = o.start().getEpochSecond() * 1_000_000_000L + o.start().getNano();
        for (int i = 0; i < offset.length; i++) {
            org.nmws.schema.figure.TcpInfo t = new org.nmws.schema.figure.TcpInfo();
            t.setTimeType("unix");
            t.setTimeValue(NmwgData.unixTime(start + offset[i]));
            t.setStream((int) at(s, "stream", i));
            t.setCwndSegments(at(s, "cwndSegments", i));
            t.setMssBytes(at(s, "mssBytes", i));
            t.setSrttUs(at(s, "srttUs", i));
            t.setRttvarUs(at(s, "rttvarUs", i));
            t.setRetransmits(at(s, "retransmits", i));
            t.setTotalRetrans(at(s, "totalRetrans", i));
            t.setPacingRateBytesPerSecond(at(s, "pacingRateBytesPerSecond", i));
            t.setDeliveryRateBytesPerSecond(at(s, "deliveryRateBytesPerSecond", i));
            t.setBytesAcked(at(s, "bytesAcked", i));
            out.add(t);
        }
    }

    /** Column c at row i; 0 when a stored series lacks the column or the row. */
    private static long at(Map<String, long[]> s, String c, int i) {
        long[] v = s.get(c);
        return v != null && i < v.length ? v[i] : 0;
    }
}
