package org.nmws.service.nmwg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.nmws.service.kind.Kinds;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.w3c.dom.Attr;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;

/**
 * Each rule of NmwgForms, read back from a written and schema-validated message: the datums
 * an observation becomes for the clients of its kind, and the figures of every other kind.
 */
class NmwgFormsTest {
    private static final DataForms FORMS = new DataForms(Kinds.measurementKinds());
    private static final PathSubject PATH = new PathSubject(null, new Endpoint("192.0.2.7", "ipv4"));
    private static final long T0 = 1_700_000_000_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final String START = "1700000000.000000000";
    private static final Environment ENV = new Environment(
            new Environment.Host("src", "mp-test", "192.0.2.1", null, null, null, null, null, null),
            Environment.Host.remote("192.0.2.7", "192.0.2.7"));

    private static Map<String, Double> figures(Object... nameValue) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put((String) nameValue[i], ((Number) nameValue[i + 1]).doubleValue());
        }
        return m;
    }

    private static Observation observation(ProbeTest test, PathSubject subject, Environment env, Map<String, Double> summary,
                                           List<Observation.Frame> frames, Map<String, long[]> samples) {
        return new Observation(0, "mp-test", test, subject, "192.0.2.1", "192.0.2.7", "nmprobe", "test", Map.of("count", "4"),
                env, Instant.ofEpochSecond(1_700_000_000L), Instant.ofEpochSecond(1_700_000_001L), summary, frames, samples);
    }

    private static Observation observation(ProbeTest test, Map<String, Double> summary, List<Observation.Frame> frames) {
        return observation(test, PATH, ENV, summary, frames, Map.of());
    }

    /** The observation written as one answer, as MessageHandler writes it, validated against the XSDs. */
    private static Responses written(Observation o, boolean raw) {
        NmwgWriter w = new NmwgWriter("SetupDataResponse", "message.1", FORMS);
        w.observation("metadata.1", Characteristic.answeredBy(o.test()).get(0).preferredEventType(), o, raw);
        return Responses.validated(w.toBytes());
    }

    /** An element's attributes by local name, namespace declarations left out. */
    private static Map<String, String> attributes(Element e) {
        Map<String, String> out = new TreeMap<>();
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (!"http://www.w3.org/2000/xmlns/".equals(a.getNamespaceURI())) {
                out.put(a.getLocalName() != null ? a.getLocalName() : a.getName(), a.getValue());
            }
        }
        return out;
    }

    private static double number(Element e, String attribute) {
        assertTrue(e.hasAttribute(attribute), attribute + " missing from " + attributes(e));
        return Double.parseDouble(e.getAttribute(attribute));
    }

    private static List<String> names(List<Element> figures) {
        List<String> out = new ArrayList<>();
        for (Element f : figures) {
            out.add(f.getAttribute("name"));
        }
        return out;
    }

    /** Every datum form a rule may write, by namespace and name: a figures-only answer has none of them. */
    private static final List<String[]> DATUMS = List.of(new String[] {Namespaces.PINGER, "datum"},
            new String[] {Namespaces.PING, "datum"}, new String[] {Namespaces.OWAMP_SUMMARY, "datum"},
            new String[] {Namespaces.OWD, "datum"}, new String[] {Namespaces.IPERF, "datum"},
            new String[] {Namespaces.TRACEROUTE, "datum"}, new String[] {Namespaces.BASE, "datum"},
            new String[] {Namespaces.NMWS_RESULT, "tcpInfo"});

    private static int datums(Responses r) {
        int n = 0;
        for (String[] d : DATUMS) {
            n += r.elements(d[0], d[1]).size();
        }
        return n;
    }

    @Test
    void aRoundTripIsPingerSummaryDatumsAndOnePingDatumPerFrameWhenRaw() {
        Observation o = observation(ProbeTest.ROUND_TRIP, figures("minRtt", 0.1, "medianRtt", 0.15, "lossPercent", 50.0,
                "sent", 2), List.of(new Observation.Frame(0, T0, 100_000, 64, 64),
                new Observation.Frame(1, T0 + 10 * MS, Observation.Frame.LOST, 64, -1)));
        Responses r = written(o, true);
        List<Element> pinger = r.elements(Namespaces.PINGER, "datum");
        assertEquals(List.of("minRtt", "medianRtt", "lossPercent", "sent"), names(pinger));
        assertEquals(Map.of("name", "minRtt", "value", "0.1", "valueUnits", "ms", "timeType", "unix", "timeValue", START),
                attributes(pinger.get(0)));
        assertEquals("50", r.pinger("lossPercent"), "a whole number without a point, as PingER writes it");
        assertEquals("%", pinger.get(2).getAttribute("valueUnits"));
        assertFalse(pinger.get(3).hasAttribute("valueUnits"), "a count has no unit");
        List<Element> ping = r.elements(Namespaces.PING, "datum");
        assertEquals(2, ping.size());
        assertEquals(Set.of("seqNum", "value", "valueUnits", "ttl", "numBytes", "timeType", "timeValue"),
                attributes(ping.get(0)).keySet());
        assertEquals(0.1, number(ping.get(0), "value"));
        assertEquals("64", ping.get(0).getAttribute("ttl"));
        assertEquals("64", ping.get(0).getAttribute("numBytes"));
        assertEquals(Map.of("seqNum", "1", "numBytes", "64", "timeType", "unix", "timeValue", "1700000000.010000000"),
                attributes(ping.get(1)), "a lost frame has no value and no TTL");
        assertTrue(r.elements(Namespaces.NMWS_RESULT, "figure").isEmpty(), "PingER clients read datums, not figures");

        Responses summaryOnly = written(o, false);
        assertEquals(4, summaryOnly.elements(Namespaces.PINGER, "datum").size());
        assertTrue(summaryOnly.elements(Namespaces.PING, "datum").isEmpty());
    }

    @Test
    void stampIsFiguresWithUnitsAndOnePingDatumPerPacketWhenRaw() {
        Observation o = observation(ProbeTest.STAMP, figures("medianRtt", 1.0, "lossPercent", 25.0, "forwardLost", 1),
                List.of(new Observation.Frame(0, T0, 1_000_000, 44, 62),
                        new Observation.Frame(1, T0 + 20 * MS, Observation.Frame.LOST, 44, -1)));
        Responses r = written(o, true);
        List<Element> figures = r.elements(Namespaces.NMWS_RESULT, "figure");
        assertEquals(List.of("medianRtt", "lossPercent", "forwardLost"), names(figures));
        assertEquals("ms", figures.get(0).getAttribute("units"));
        assertEquals(1.0, number(figures.get(0), "value"));
        assertEquals("%", figures.get(1).getAttribute("units"));
        assertFalse(figures.get(2).hasAttribute("units"));
        assertEquals(START, figures.get(2).getAttribute("timeValue"));
        List<Element> ping = r.elements(Namespaces.PING, "datum");
        assertEquals(2, ping.size());
        assertEquals(1.0, number(ping.get(0), "value"));
        assertEquals("62", ping.get(0).getAttribute("ttl"));
        assertEquals("44", ping.get(0).getAttribute("numBytes"));
        assertFalse(ping.get(1).hasAttribute("value"));
        assertEquals("1700000000.020000000", ping.get(1).getAttribute("timeValue"));
        assertTrue(r.elements(Namespaces.PINGER, "datum").isEmpty());

        Responses figuresOnly = written(o, false);
        assertEquals(3, figuresOnly.elements(Namespaces.NMWS_RESULT, "figure").size());
        assertEquals(0, datums(figuresOnly));
    }

    @Test
    void aUdpStreamIsTheOwampSummaryTheIperfDatumFiguresAndOneOwdDatumPerFrameWhenRaw() {
        Observation o = observation(ProbeTest.UDP_STREAM, figures("sent", 4, "lost", 1, "duplicates", 0, "lossPercent", 25.0,
                "minDelayMs", 0.4, "maxDelayMs", 0.8, "oneWayUncertaintyMs", 0.75, "receiverUserMbps", 3.9,
                "meanAbsIpdvMs", 0.05), List.of(new Observation.Frame(0, T0, 500_000, 1000, -1),
                new Observation.Frame(1, T0 + MS, Observation.Frame.LOST, 1000, -1)));
        Responses r = written(o, true);
        List<Element> summary = r.elements(Namespaces.OWAMP_SUMMARY, "datum");
        assertEquals(1, summary.size());
        Element s = summary.get(0);
        assertEquals(Set.of("timeType", "startTime", "endTime", "sent", "loss", "duplicates", "min_delay", "max_delay",
                "maxError"), attributes(s).keySet());
        assertEquals(START, s.getAttribute("startTime"));
        assertEquals("1700000001.000000000", s.getAttribute("endTime"));
        assertEquals("4", s.getAttribute("sent"));
        assertEquals("1", s.getAttribute("loss"));
        assertEquals("0", s.getAttribute("duplicates"));
        // owamp clients read seconds
        assertEquals(0.0004, number(s, "min_delay"));
        assertEquals(0.0008, number(s, "max_delay"));
        assertEquals(0.00075, number(s, "maxError"));
        List<Element> iperf = r.elements(Namespaces.IPERF, "datum");
        assertEquals(1, iperf.size());
        assertEquals(3_900_000.0, number(iperf.get(0), "throughput"), "bit/s, as bwctl clients read it");
        assertEquals(0.05, number(iperf.get(0), "jitter"));
        assertEquals("1", iperf.get(0).getAttribute("lost"));
        assertEquals("4", iperf.get(0).getAttribute("sent"));
        assertEquals(START, iperf.get(0).getAttribute("timeValue"));
        assertEquals(9, r.elements(Namespaces.NMWS_RESULT, "figure").size());
        List<Element> owd = r.elements(Namespaces.OWD, "datum");
        assertEquals(2, owd.size());
        assertEquals(Set.of("sequenceNumber", "timeType", "sendTime", "receiveTime", "numBytes", "timeError"),
                attributes(owd.get(0)).keySet());
        assertEquals(START, owd.get(0).getAttribute("sendTime"));
        assertEquals("1700000000.000500000", owd.get(0).getAttribute("receiveTime"));
        assertEquals("1000", owd.get(0).getAttribute("numBytes"));
        assertEquals(0.00075, number(owd.get(0), "timeError"));
        assertEquals("1", owd.get(1).getAttribute("sequenceNumber"));
        assertFalse(owd.get(1).hasAttribute("receiveTime"), "a lost frame never arrived");

        assertTrue(written(o, false).elements(Namespaces.OWD, "datum").isEmpty());
    }

    @Test
    void aUdpStreamLackingFiguresLeavesThemOutAndTakesTheSendersClockError() {
        Environment clocked = new Environment(new Environment.Host("src", "mp-test", "192.0.2.1", null, null, null, null,
                new Environment.Clock("tsc", true, 250L, 10L, "ok"), null), ENV.dst());
        Observation o = observation(ProbeTest.UDP_STREAM, PATH, clocked, figures("sent", 10, "lost", 0), List.of(), Map.of());
        Responses r = written(o, false);
        Element s = r.elements(Namespaces.OWAMP_SUMMARY, "datum").get(0);
        assertEquals(Set.of("timeType", "startTime", "endTime", "sent", "loss", "maxError"), attributes(s).keySet());
        assertEquals(0.00025, number(s, "maxError"));
        Element iperf = r.elements(Namespaces.IPERF, "datum").get(0);
        assertEquals(Set.of("timeType", "timeValue", "lost", "sent"), attributes(iperf).keySet());
    }

    @Test
    void aTcpStreamIsTheIperfTotalThenOneIperfDatumPerBinAndTcpInfoWhenRaw() {
        long bin = 500 * MS;
        Map<String, long[]> samples = new LinkedHashMap<>();
        samples.put("offsetNs", new long[] {0, 100 * MS});
        samples.put("stream", new long[] {0, 1});
        samples.put("cwndSegments", new long[] {10, 40});
        samples.put("srttUs", new long[] {1000, 2000});
        Observation o = observation(ProbeTest.TCP_STREAM, PATH, ENV, figures("throughputMbps", 80.0, "retransmits", 7),
                List.of(new Observation.Frame(0, T0, bin, 1_000_000, 0), new Observation.Frame(1, T0 + bin, bin, 2_000_000, 0),
                        new Observation.Frame(2, T0, bin, 3_000_000, 1), new Observation.Frame(3, T0 + bin, bin, 4_000_000, 1)),
                samples);
        Responses r = written(o, true);
        List<Element> iperf = r.elements(Namespaces.IPERF, "datum");
        assertEquals(3, iperf.size());
        assertEquals(Set.of("timeType", "timeValue", "throughput"), attributes(iperf.get(0)).keySet());
        assertEquals(80e6, number(iperf.get(0), "throughput"));
        // each bin summed over both streams: 4 MB, then 6 MB, in half a second
        assertEquals("0.000-0.500", iperf.get(1).getAttribute("interval"));
        assertEquals(64e6, number(iperf.get(1), "throughput"));
        assertEquals(START, iperf.get(1).getAttribute("timeValue"));
        assertEquals("0.500-1.000", iperf.get(2).getAttribute("interval"));
        assertEquals(96e6, number(iperf.get(2), "throughput"));
        assertEquals("1700000000.500000000", iperf.get(2).getAttribute("timeValue"));
        List<Element> tcpInfo = r.elements(Namespaces.NMWS_RESULT, "tcpInfo");
        assertEquals(2, tcpInfo.size());
        assertEquals("1700000000.100000000", tcpInfo.get(1).getAttribute("timeValue"));
        assertEquals("1", tcpInfo.get(1).getAttribute("stream"));
        assertEquals("40", tcpInfo.get(1).getAttribute("cwndSegments"));
        assertEquals("2000", tcpInfo.get(1).getAttribute("srttUs"));
        assertEquals("0", tcpInfo.get(1).getAttribute("bytesAcked"), "a column the series lacks is 0");
        List<Element> figures = r.elements(Namespaces.NMWS_RESULT, "figure");
        assertEquals(List.of("throughputMbps", "retransmits"), names(figures));
        assertEquals("Mbit/s", figures.get(0).getAttribute("units"));

        Responses total = written(o, false);
        assertEquals(1, total.elements(Namespaces.IPERF, "datum").size());
        assertTrue(total.elements(Namespaces.NMWS_RESULT, "tcpInfo").isEmpty());
    }

    @Test
    void aHopListIsOneTracerouteDatumPerProbeWithTheHopFromTheRoute() {
        Environment routed = new Environment(ENV.src(), ENV.dst(), List.of(
                new Environment.RouteHop(1, "10.0.0.1", "gw.example.net"), new Environment.RouteHop(2, null, null),
                new Environment.RouteHop(3, "192.0.2.7", null)));
        Observation o = observation(ProbeTest.HOP_LIST, PATH, routed, figures("hopCount", 3, "hop1MinRttMs", 1.2),
                List.of(new Observation.Frame(0, T0, 1_500_000, 60, 1), new Observation.Frame(1, T0, 1_200_000, 60, 1),
                        new Observation.Frame(2, T0, Observation.Frame.LOST, 60, 2),
                        new Observation.Frame(3, T0, Observation.Frame.LOST, 60, 3),
                        new Observation.Frame(4, T0, 9_000_000, 60, 3)), Map.of());
        // the hops are the answer, raw or not
        for (boolean raw : new boolean[] {true, false}) {
            Responses r = written(o, raw);
            List<Element> hops = r.elements(Namespaces.TRACEROUTE, "datum");
            assertEquals(5, hops.size());
            assertEquals(Set.of("ttl", "queryNum", "hop", "hopName", "value", "valueUnits", "numBytes", "timeType",
                    "timeValue"), attributes(hops.get(0)).keySet());
            assertEquals("10.0.0.1", hops.get(0).getAttribute("hop"));
            assertEquals("gw.example.net", hops.get(0).getAttribute("hopName"));
            assertEquals(1.5, number(hops.get(0), "value"));
            assertEquals("60", hops.get(0).getAttribute("numBytes"));
            assertEquals("2", hops.get(1).getAttribute("queryNum"));
            assertEquals(Map.of("ttl", "2", "queryNum", "1", "numBytes", "60", "timeType", "unix", "timeValue", START),
                    attributes(hops.get(2)), "a silent hop: no address, no RTT");
            assertFalse(hops.get(3).hasAttribute("hop"), "an unanswered probe names no hop, even one the route knows");
            assertEquals("2", hops.get(4).getAttribute("queryNum"));
            assertEquals("192.0.2.7", hops.get(4).getAttribute("hop"));
            assertFalse(hops.get(4).hasAttribute("hopName"));
            assertEquals(9.0, number(hops.get(4), "value"));
            assertEquals(List.of("hopCount", "hop1MinRttMs"), names(r.elements(Namespaces.NMWS_RESULT, "figure")));
            assertEquals(3, r.elements(Namespaces.ENVIRONMENT, "hop").size(), "the route in the environment");
        }
    }

    @Test
    void utilizationIsOneSnmpDatumPerIntervalAndDirectionInBytesPerSecond() {
        Environment nic = new Environment(new Environment.Host("src", "mp-test", null, null, null, null,
                new Environment.Nic("lo", "loopback", null, 65536), null, null), null);
        Observation o = observation(ProbeTest.UTILIZATION, new PathSubject(null, new Endpoint("lo", "interface")), nic,
                figures("outMbps", 8.0, "inUtilizationPercent", 1.5),
                List.of(new Observation.Frame(0, T0, 1000 * MS, 1_000_000, 0), new Observation.Frame(1, T0, 1000 * MS, 250_000, 1),
                        new Observation.Frame(2, T0 + 1000 * MS, 500 * MS, 500_000, 0),
                        new Observation.Frame(3, T0 + 1000 * MS, 500 * MS, 0, 1)), Map.of());
        Responses r = written(o, true);
        List<Element> datums = r.elements(Namespaces.BASE, "datum");
        assertEquals(4, datums.size());
        List<String> directions = new ArrayList<>();
        List<Double> rates = new ArrayList<>();
        for (Element d : datums) {
            assertEquals("Bps", d.getAttribute("valueUnits"));
            directions.add(d.getAttributeNS(Namespaces.NMWS_RESULT, "direction"));
            rates.add(number(d, "value"));
        }
        assertEquals(List.of("out", "in", "out", "in"), directions);
        assertEquals(List.of(1e6, 250e3, 1e6, 0.0), rates);
        assertEquals(START, datums.get(1).getAttribute("timeValue"));
        assertEquals("1700000001.000000000", datums.get(2).getAttribute("timeValue"));
        List<Element> figures = r.elements(Namespaces.NMWS_RESULT, "figure");
        assertEquals(List.of("outMbps", "inUtilizationPercent"), names(figures));
        assertEquals("Mbit/s", figures.get(0).getAttribute("units"));
        assertEquals("%", figures.get(1).getAttribute("units"));
        assertEquals(List.of("lo"), r.elements(Namespaces.TOPOLOGY, "ifName").stream().map(e -> e.getTextContent().trim())
                .toList());
    }

    @Test
    void everyOtherTestIsItsFiguresWithTheUnitsItsKindDeclares() {
        Map<ProbeTest, Map<String, Double>> cases = new LinkedHashMap<>();
        cases.put(ProbeTest.LATENCY_SCAN, figures("slopeUsPerByte", 0.008, "size64MinRttMs", 0.1, "sent", 20));
        cases.put(ProbeTest.CAPACITY, figures("capacityMbps", 95.0, "iqrMbps", 3.0, "trainsUsed", 16));
        cases.put(ProbeTest.HOP_CAPACITY, figures("hop3CapacityMbps", 100.0, "bottleneckFrameMbps", 100.0, "hopCount", 5));
        cases.put(ProbeTest.AVAILABLE, figures("availableMbps", 52.5, "step2LossPercent", 5.0, "steps", 5));
        Map<ProbeTest, List<String>> units = Map.of(ProbeTest.LATENCY_SCAN, List.of("us/byte", "ms", ""),
                ProbeTest.CAPACITY, List.of("Mbit/s", "Mbit/s", ""), ProbeTest.HOP_CAPACITY, List.of("Mbit/s", "Mbit/s", ""),
                ProbeTest.AVAILABLE, List.of("Mbit/s", "%", ""));
        for (Map.Entry<ProbeTest, Map<String, Double>> c : cases.entrySet()) {
            Observation o = observation(c.getKey(), c.getValue(), List.of(new Observation.Frame(0, T0, 1, 1, 1)));
            Responses r = written(o, true);
            List<Element> figures = r.elements(Namespaces.NMWS_RESULT, "figure");
            assertEquals(new ArrayList<>(c.getValue().keySet()), names(figures), c.getKey().key());
            List<String> written = new ArrayList<>();
            for (int i = 0; i < figures.size(); i++) {
                written.add(figures.get(i).getAttribute("units"));
                assertEquals(new ArrayList<>(c.getValue().values()).get(i), number(figures.get(i), "value"));
                assertEquals(START, figures.get(i).getAttribute("timeValue"));
            }
            assertEquals(units.get(c.getKey()), written, c.getKey().key());
            assertEquals(0, datums(r), c.getKey().key() + " has no rule: figures only, frames or not");
        }
    }
}
