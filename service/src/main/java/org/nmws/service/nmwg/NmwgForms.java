package org.nmws.service.nmwg;

import org.nmws.service.observation.Numbers;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.namespace.QName;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Unit;

/**
 * The NMWG v2 form of every kind's results, in one table: by default an observation's figures
 * as nmws:figure elements with their units; a rule per test only where its clients read another
 * form (PingER and ping datums for round trips, owamp and iperf for streams, iperf for TCP,
 * traceroute datums for hop lists, SNMP-MA datums for utilization, ping datums for STAMP
 * packets). The kinds know nothing of this dialect: they give their figures' units.
 */
public final class NmwgForms {
    private static final QName DIRECTION = new QName(Namespaces.NMWS_RESULT, "direction", "nmws");
    private static final Map<ProbeTest, DataForm> RULES = new EnumMap<>(ProbeTest.class);

    static {
        RULES.put(ProbeTest.ROUND_TRIP, NmwgForms::pinger);
        RULES.put(ProbeTest.STAMP, NmwgForms::stamp);
        RULES.put(ProbeTest.TWAMP, NmwgForms::stamp);
        RULES.put(ProbeTest.OWAMP, NmwgForms::owamp);
        RULES.put(ProbeTest.TCP_STREAM, NmwgForms::iperfTcp);
        RULES.put(ProbeTest.UDP_STREAM, NmwgForms::owampAndIperf);
        RULES.put(ProbeTest.HOP_LIST, NmwgForms::traceroute);
        RULES.put(ProbeTest.UTILIZATION, NmwgForms::snmp);
    }

    private NmwgForms() {
    }

    /** The unit of a figure of a test's kind (the kind declares it). */
    public interface Units {
        Unit unit(String figure);
    }

    /** How one test's results are written; every test without a rule of its own writes its figures. */
    public static DataForm of(ProbeTest test) {
        return RULES.getOrDefault(test, NmwgForms::figures);
    }

    static void figures(NmwgData out, Observation o, boolean raw, Units units) {
        out.figures(o, units::unit);
    }

    /** PingER summary datums, and one ping datum per frame when asked. */
    static void pinger(NmwgData out, Observation o, boolean raw, Units units) {
        String time = NmwgData.unixTime(o.start());
        for (Map.Entry<String, Double> e : o.summary().entrySet()) {
            org.nmws.schema.pinger.Datum d = new org.nmws.schema.pinger.Datum();
            d.setName(e.getKey());
            d.setValue(NmwgData.number(e.getValue()));
            String label = units.unit(e.getKey()).label();
            if (label != null) {
                d.setValueUnits(label);
            }
            d.setTimeType("unix");
            d.setTimeValue(time);
            out.add(d);
        }
        if (raw) {
            for (Observation.Frame f : o.frames()) {
                org.nmws.schema.ping.Datum d = new org.nmws.schema.ping.Datum();
                d.setSeqNum(f.seq());
                if (!f.lost()) {
                    d.setValue(f.valueNanos() / 1e6);
                    d.setValueUnits("ms");
                    if (f.ttl() >= 0) {
                        d.setTtl(f.ttl());
                    }
                }
                d.setNumBytes(f.bytes());
                d.setTimeType("unix");
                d.setTimeValue(NmwgData.unixTime(f.sendEpochNanos()));
                out.add(d);
            }
        }
    }

    /** Figures with their units, and one ping datum per packet when asked. */
    static void stamp(NmwgData out, Observation o, boolean raw, Units units) {
        out.figures(o, units::unit);
        if (raw) {
            for (Observation.Frame fr : o.frames()) {
                org.nmws.schema.ping.Datum d = new org.nmws.schema.ping.Datum();
                d.setSeqNum(fr.seq());
                if (!fr.lost()) {
                    d.setValue(fr.valueNanos() / 1e6);
                    d.setValueUnits("ms");
                    if (fr.ttl() >= 0) {
                        d.setTtl(fr.ttl());
                    }
                }
                d.setNumBytes(fr.bytes());
                d.setTimeType("unix");
                d.setTimeValue(NmwgData.unixTime(fr.sendEpochNanos()));
                out.add(d);
            }
        }
    }

    static void iperfTcp(NmwgData out, Observation o, boolean raw, Units units) {
        org.nmws.schema.iperf.Datum total = new org.nmws.schema.iperf.Datum();
        total.setTimeType("unix");
        total.setTimeValue(NmwgData.unixTime(o.start()));
        Double mbps = o.summary().get("throughputMbps");
        if (mbps != null) {
            total.setThroughput(Numbers.significant(mbps * 1e6));
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
                d.setThroughput(Numbers.significant(e.getValue()[0] * 8e9 / e.getValue()[1]));
                out.add(d);
            }
            tcpInfo(out, o);
        }
        out.figures(o, units::unit);
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

    /**
     * The owamp summary datum (delays in seconds, as owamp clients read them), the iperf
     * datum (throughput in bit/s, jitter, loss) as bwctl clients read it, one nmws figure per
     * further figure, and one owd datum per frame when asked.
     */
    static void owampAndIperf(NmwgData out, Observation o, boolean raw, Units units) {
        Map<String, Double> f = o.summary();
        owampSummary(out, o);
        org.nmws.schema.iperf.Datum iperf = new org.nmws.schema.iperf.Datum();
        iperf.setTimeType("unix");
        iperf.setTimeValue(NmwgData.unixTime(o.start()));
        if (f.containsKey("receiverUserMbps")) {
            iperf.setThroughput(Numbers.significant(f.get("receiverUserMbps") * 1e6));
        }
        if (f.containsKey("meanAbsIpdvMs")) {
            iperf.setJitter(Numbers.significant(f.get("meanAbsIpdvMs")));
        }
        iperf.setLost(count(f, "lost"));
        iperf.setSent(count(f, "sent"));
        out.add(iperf);
        out.figures(o, units::unit);
        if (raw) {
            owdDatums(out, o);
        }
    }

    /** An OWAMP session's results as owamp's own MA writes them: the summary datum, figures, owd datums. */
    static void owamp(NmwgData out, Observation o, boolean raw, Units units) {
        owampSummary(out, o);
        out.figures(o, units::unit);
        if (raw) {
            owdDatums(out, o);
        }
    }

    private static void owampSummary(NmwgData out, Observation o) {
        Map<String, Double> f = o.summary();
        org.nmws.schema.owamp.summary.Datum summary = new org.nmws.schema.owamp.summary.Datum();
        summary.setTimeType("unix");
        summary.setStartTime(NmwgData.unixTime(o.start()));
        summary.setEndTime(NmwgData.unixTime(o.end()));
        // An imported observation may lack figures: an absent one is left out, never made up.
        summary.setSent(count(f, "sent"));
        summary.setLoss(count(f, "lost"));
        summary.setDuplicates(count(f, "duplicates"));
        if (f.containsKey("minDelayMs") && f.containsKey("maxDelayMs")) {
            summary.setMinDelay(Numbers.significant(f.get("minDelayMs") / 1e3));
            summary.setMaxDelay(Numbers.significant(f.get("maxDelayMs") / 1e3));
        }
        // owamp's maxError is the delays' error from both clocks; older observations knew only the sender's
        Double uncertainty = f.get("oneWayUncertaintyMs");
        Environment.Clock clock = o.environment().src() == null ? null : o.environment().src().clock();
        if (uncertainty != null) {
            summary.setMaxError(Numbers.significant(uncertainty / 1e3));
        } else if (clock != null && clock.maxErrorUs() != null) {
            summary.setMaxError(clock.maxErrorUs() / 1e6);
        }
        out.add(summary);
    }

    private static void owdDatums(NmwgData out, Observation o) {
        Double uncertainty = o.summary().get("oneWayUncertaintyMs");
        for (Observation.Frame fr : o.frames()) {
            org.nmws.schema.owamp.owd.Datum d = new org.nmws.schema.owamp.owd.Datum();
            d.setSequenceNumber(fr.seq());
            d.setTimeType("unix");
            d.setSendTime(NmwgData.unixTime(fr.sendEpochNanos()));
            if (!fr.lost()) {
                d.setReceiveTime(NmwgData.unixTime(fr.sendEpochNanos() + fr.valueNanos()));
            }
            d.setNumBytes(Math.toIntExact(fr.bytes()));
            if (uncertainty != null) {
                d.setTimeError(Numbers.significant(uncertainty / 1e3));
            }
            out.add(d);
        }
    }

    /**
     * One traceroute datum per probe, the hop from the route in the environment; from stored
     * summaries (no raw), one per hop of the route with its least RTT.
     */
    static void traceroute(NmwgData out, Observation o, boolean raw, Units units) {
        Map<Integer, Environment.RouteHop> route = new HashMap<>();
        if (o.environment().route() != null) {
            for (Environment.RouteHop h : o.environment().route()) {
                route.put(h.ttl(), h);
                if (o.frames().isEmpty()) {
                    // read from stored summaries (no raw): one datum per hop of the route with its
                    // least RTT, as perfSONAR's traceroute clients read hops by default
                    org.nmws.schema.traceroute.Datum d = new org.nmws.schema.traceroute.Datum();
                    d.setTtl(h.ttl());
                    d.setQueryNum(1);
                    d.setHop(h.address());
                    d.setHopName(h.name());
                    Double min = o.summary().get("hop" + h.ttl() + "MinRttMs");
                    if (min != null) {
                        d.setValue(min);
                        d.setValueUnits("ms");
                    }
                    d.setTimeType("unix");
                    d.setTimeValue(NmwgData.unixTime(o.start()));
                    out.add(d);
                }
            }
        }
        Map<Integer, Integer> queries = new HashMap<>();
        for (Observation.Frame f : o.frames()) {
            org.nmws.schema.traceroute.Datum d = new org.nmws.schema.traceroute.Datum();
            d.setTtl(f.ttl());
            d.setQueryNum(queries.merge(f.ttl(), 1, Integer::sum));
            Environment.RouteHop hop = route.get(f.ttl());
            if (hop != null && hop.address() != null && !f.lost()) {
                d.setHop(hop.address());
                d.setHopName(hop.name());
            }
            if (!f.lost()) {
                d.setValue(f.valueNanos() / 1e6);
                d.setValueUnits("ms");
            }
            d.setNumBytes(Math.toIntExact(f.bytes())); // probe frames: at most 64 KiB
            d.setTimeType("unix");
            d.setTimeValue(NmwgData.unixTime(f.sendEpochNanos()));
            out.add(d);
        }
        out.figures(o, units::unit);
    }

    /** One nmwg:datum per interval and direction with the rate in bytes per second, then the figures. */
    static void snmp(NmwgData out, Observation o, boolean raw, Units units) {
        for (Observation.Frame f : o.frames()) {
            org.nmws.schema.nmwg.Datum d = new org.nmws.schema.nmwg.Datum();
            d.setTimeType("unix");
            d.setTimeValue(NmwgData.unixTime(f.sendEpochNanos()));
            d.setValue(Numbers.significant(f.bytes() * 1e9 / f.valueNanos()));
            d.setValueUnits("Bps");
            d.getOtherAttributes().put(DIRECTION, f.ttl() == 0 ? "out" : "in");
            out.add(d);
        }
        out.figures(o, units::unit);
    }

    private static Long count(Map<String, Double> figures, String name) {
        Double v = figures.get(name);
        return v == null ? null : v.longValue();
    }
}
