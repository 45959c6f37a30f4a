package org.nmws.service.perfsonar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Each pScheduler form from a stored result: the values in pScheduler's names and units, valid
 * against the schema of what pScheduler's validate.py accepts, and the Logstash document with
 * the checksum perfSONAR computes (vectors from an independent port of to_json_c14n).
 */
class PschedulerFormsTest {
    private static final Instant T0 = Instant.parse("2026-05-01T12:00:00Z");
    private static final PschedulerSchemas SCHEMAS = new PschedulerSchemas();

    private static Environment env(String src, String dst) {
        return new Environment(new Environment.Host("src", "me", src, null, null, null, null, null, null),
                Environment.Host.remote(dst, dst));
    }

    static Observation stream() {
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("sent", 100.0);
        s.put("received", 98.0);
        s.put("lost", 2.0);
        s.put("duplicates", 0.0);
        s.put("outOfOrder", 1.0);
        s.put("oneWayUncertaintyMs", 0.25);
        List<Observation.Frame> frames = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            long owd = i < 2 ? Observation.Frame.LOST : (i % 2 == 0 ? 10_001_000 : 10_204_000); // 10.00 ms and 10.20 ms
            frames.add(new Observation.Frame(i, T0.toEpochMilli() * 1_000_000 + i * 10_000_000L, owd, 1000, -1));
        }
        Map<String, String> p = new LinkedHashMap<>();
        p.put("count", "100");
        p.put("packetSize", "1000");
        p.put("interval", "0.01");
        p.put("timeout", "0.5");
        return new Observation(7, "pointA", ProbeTest.UDP_STREAM, new PathSubject(null, new Endpoint("127.0.0.1", "ipv4")),
                "127.0.0.1", "127.0.0.1", "nmprobe", "3.1", p, env("127.0.0.1", "127.0.0.1"), T0, T0.plusMillis(1500), s, frames);
    }

    static Observation roundTrip() {
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("sent", 4.0);
        s.put("received", 3.0);
        s.put("minRtt", 1.0);
        s.put("duplicates", 0.0);
        s.put("outOfOrder", 0.0);
        List<Observation.Frame> frames = List.of(new Observation.Frame(0, 0, 1_000_000, 64, 64),
                new Observation.Frame(1, 0, 2_000_000, 64, 64), new Observation.Frame(2, 0, Observation.Frame.LOST, 64, -1),
                new Observation.Frame(3, 0, 3_000_000, 64, 64));
        Map<String, String> p = new LinkedHashMap<>();
        p.put("count", "4");
        p.put("packetSize", "64");
        p.put("interval", "0.1");
        p.put("ttl", "0");
        p.put("timeout", "1");
        return new Observation(8, "pointA", ProbeTest.ROUND_TRIP, new PathSubject(new Endpoint("a.example", "hostname"),
                new Endpoint("b.example", "hostname")), "10.0.0.1", "10.0.0.2", "nmprobe", "3.1", p, env("10.0.0.1", "10.0.0.2"), T0,
                T0.plusSeconds(1), s, frames);
    }

    static Observation tcp() {
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("streams", 2.0);
        s.put("throughputMbps", 900.0);
        s.put("bytesReceived", 225_000_000.0);
        s.put("receiverSeconds", 2.0);
        s.put("retransmits", 5.0);
        s.put("meanSrttUs", 120.0);
        for (int i = 0; i < 2; i++) {
            s.put("stream" + i + "ThroughputMbps", 450.0);
            s.put("stream" + i + "BytesReceived", 112_500_000.0);
            s.put("stream" + i + "Retransmits", i == 0 ? 5.0 : 0.0);
            s.put("stream" + i + "FinalSrttUs", 110.0);
        }
        long t = T0.toEpochMilli() * 1_000_000;
        List<Observation.Frame> frames = new ArrayList<>();
        for (int st = 0; st < 2; st++) {
            for (int b = 0; b < 2; b++) {
                frames.add(new Observation.Frame((long) st * 2 + b, t + b * 1_000_000_000L, 1_000_000_000L, 56_250_000, st));
            }
        }
        Map<String, String> p = new LinkedHashMap<>();
        p.put("protocol", "TCP");
        p.put("streams", "2");
        p.put("timeDuration", "2");
        p.put("bufferLength", "131072");
        p.put("windowSize", "0");
        p.put("congestion", "cubic");
        return new Observation(9, "pointA", ProbeTest.TCP_STREAM, new PathSubject(null, new Endpoint("::1", "ipv6")),
                "::1", "::1", "nmprobe", "3.1", p, env("::1", "::1"), T0, T0.plusSeconds(2), s, frames);
    }

    static Observation hops() {
        Map<String, Double> s = new LinkedHashMap<>();
        s.put("hopCount", 3.0);
        s.put("hop1MinRttMs", 0.5);
        s.put("hop3MinRttMs", 1.25);
        List<Environment.RouteHop> route = List.of(new Environment.RouteHop(1, "10.0.0.1", "r1.example"),
                new Environment.RouteHop(2, null, null), new Environment.RouteHop(3, "10.0.0.2", null));
        Map<String, String> p = new LinkedHashMap<>();
        p.put("maxTtl", "30");
        p.put("probesPerHop", "3");
        p.put("waitTime", "1");
        p.put("packetSize", "40");
        p.put("resolve", "true");
        return new Observation(10, "pointA", ProbeTest.HOP_LIST, new PathSubject(null, new Endpoint("10.0.0.2", "ipv4")),
                null, "10.0.0.2", "nmprobe", "3.1", p,
                new Environment(Environment.Host.remote("me", "10.0.0.9"), Environment.Host.remote("10.0.0.2", "10.0.0.2"), route),
                T0, T0.plusSeconds(3), s, List.of());
    }

    private static void valid(PschedulerType t, JsonNode result) {
        List<String> problems = SCHEMAS.problems(t, result);
        assertTrue(problems.isEmpty(), t + " result " + result + " fails: " + problems);
    }

    @Test
    void aUdpStreamIsALatencyResultWithOwpingsHistogramInMilliseconds() {
        ObjectNode r = PschedulerResults.result(stream());
        valid(PschedulerType.LATENCY, r);
        assertEquals(100, r.get("packets-sent").asInt());
        assertEquals(98, r.get("packets-received").asInt());
        assertEquals(2, r.get("packets-lost").asInt());
        assertEquals(1, r.get("packets-reordered").asInt());
        assertEquals(0.25, r.get("max-clock-error").asDouble());
        assertEquals(49, r.get("histogram-latency").get("10").asInt());
        assertEquals(49, r.get("histogram-latency").get("10.2").asInt());
        assertEquals(2, r.get("histogram-latency").size());
    }

    /** Issue 22: an OWAMP session is a latency result (owping's own), a TWAMP session an rtt result. */
    @Test
    void owampIsALatencyResultAndTwampAnRttResult() {
        Observation s = stream();
        Map<String, String> p = new LinkedHashMap<>(s.parameters());
        p.remove("packetSize");
        p.put("packetPadding", "20");
        p.put("protocol", "OWAMP");
        Observation owamp = new Observation(11, s.measurementPoint(), ProbeTest.OWAMP, s.subject(), s.srcAddress(),
                s.dstAddress(), s.tool(), s.toolVersion(), p, s.environment(), s.start(), s.end(), s.summary(), s.frames());
        assertEquals(PschedulerType.LATENCY, PschedulerType.required(owamp));
        ObjectNode r = PschedulerResults.result(owamp);
        valid(PschedulerType.LATENCY, r);
        assertEquals(98, r.get("packets-received").asInt());
        assertEquals(49, r.get("histogram-latency").get("10.2").asInt());
        assertEquals(20, PschedulerResults.archiveBody(owamp).at("/result/test/spec/packet-padding").asInt());
        Observation rr = roundTrip();
        Observation twamp = new Observation(12, rr.measurementPoint(), ProbeTest.TWAMP, rr.subject(), rr.srcAddress(),
                rr.dstAddress(), rr.tool(), rr.toolVersion(), rr.parameters(), rr.environment(), rr.start(), rr.end(),
                rr.summary(), rr.frames());
        assertEquals(PschedulerType.RTT, PschedulerType.required(twamp));
        valid(PschedulerType.RTT, PschedulerResults.result(twamp));
    }

    @Test
    void theSameStreamAsThroughputIsAUdpIperfResult() {
        ObjectNode r = PschedulerResults.result(stream(), PschedulerType.THROUGHPUT);
        valid(PschedulerType.THROUGHPUT, r);
        assertEquals(100, r.get("summary").get("summary").get("sent").asInt());
        assertEquals(2, r.get("summary").get("summary").get("lost").asInt());
        assertTrue(PschedulerResults.test(stream(), PschedulerType.THROUGHPUT).get("spec").get("udp").asBoolean());
    }

    @Test
    void roundTripsAreAnRttResultWithIsoDurationsAndLossAsAFraction() {
        ObjectNode r = PschedulerResults.result(roundTrip());
        valid(PschedulerType.RTT, r);
        assertEquals(3, r.get("roundtrips").size());
        assertEquals("PT0.002S", r.get("roundtrips").get(1).get("rtt").asText());
        assertEquals(2, r.get("roundtrips").get(1).get("seq").asInt());
        assertEquals(0.25, r.get("loss").asDouble());
        assertEquals("PT0.001S", r.get("min").asText());
        assertEquals("PT0.003S", r.get("max").asText());
        assertEquals("PT0.002S", r.get("mean").asText());
        assertEquals("PT0.000816497S", r.get("stddev").asText()); // sqrt(2/3) ms, population
        JsonNode spec = PschedulerResults.test(roundTrip()).get("spec");
        assertEquals("a.example", spec.get("source").asText());
        assertEquals("PT0.1S", spec.get("interval").asText());
        assertFalse(spec.has("ttl"), "ttl 0 (the system's) is no Cardinal: left out");
        ObjectNode bad = r.deepCopy().put("loss", 25.0);
        bad.withArray("roundtrips").addObject().put("rtt", "2 ms");
        List<String> problems = SCHEMAS.problems(PschedulerType.RTT, bad);
        assertEquals(2, problems.size(), "a percentage for loss and a bare number for an RTT are refused: " + problems);
    }

    @Test
    void aTcpTestIsAThroughputResultWithIntervalsPerBinAndStream() {
        ObjectNode r = PschedulerResults.result(tcp());
        valid(PschedulerType.THROUGHPUT, r);
        assertEquals(2, r.get("intervals").size());
        assertEquals(900e6, r.get("intervals").get(0).get("summary").get("throughput-bits").asDouble(), 1e-3);
        assertEquals(9e8, r.get("summary").get("summary").get("throughput-bits").asDouble(), 1e-3);
        assertEquals(5, r.get("summary").get("summary").get("retransmits").asInt());
        assertEquals(2, r.get("summary").get("streams").size());
        JsonNode spec = PschedulerResults.test(tcp()).get("spec");
        assertEquals("PT2S", spec.get("duration").asText());
        assertEquals(2, spec.get("parallel").asInt());
        assertEquals(6, spec.get("ip-version").asInt());
    }

    @Test
    void aHopListIsATraceWithSilentHopsEmpty() {
        ObjectNode r = PschedulerResults.result(hops());
        valid(PschedulerType.TRACE, r);
        JsonNode path = r.get("paths").get(0);
        assertEquals(3, path.size());
        assertEquals("10.0.0.1", path.get(0).get("ip").asText());
        assertEquals("r1.example", path.get(0).get("hostname").asText());
        assertEquals("PT0.0005S", path.get(0).get("rtt").asText());
        assertEquals(0, path.get(1).size());
        assertEquals("PT0.00125S", path.get(2).get("rtt").asText());
    }

    @Test
    void aKindWithoutAPschedulerTypeIsToldSo() {
        Observation o = new Observation(11, "p", ProbeTest.CAPACITY, new PathSubject(null, new Endpoint("h", "hostname")),
                null, null, "nmprobe", "3.1", Map.of(), null, T0, T0, Map.of(), List.of());
        PschedulerType.NoForm e = assertThrows(PschedulerType.NoForm.class, () -> PschedulerResults.archiveBody(o));
        assertTrue(e.getMessage().contains("CAPACITY") && e.getMessage().contains("no pScheduler form"), e.getMessage());
        assertThrows(PschedulerType.NoForm.class, () -> PschedulerResults.result(roundTrip(), PschedulerType.LATENCY));
    }

    @Test
    void theArchiveBodyHasArchiverRawsShape() {
        ObjectNode b = PschedulerResults.archiveBody(stream());
        JsonNode r = b.get("result");
        assertEquals(PschedulerResults.runId(stream()).toString(), r.get("id").asText());
        assertTrue(b.get("run-href").asText().startsWith(b.get("task-href").asText() + "/runs/"));
        assertEquals("2026-05-01T12:00:00Z", r.get("schedule").get("start").asText());
        assertEquals("PT2S", r.get("schedule").get("duration").asText());
        assertEquals("latency", r.get("test").get("type").asText());
        assertEquals("nmprobe", r.get("tool").get("name").asText());
        assertEquals("127.0.0.1", r.get("participants").get(0).asText());
        assertEquals(stream().measurementPoint(), r.get("reference").get("nmws").get("measurement-point").asText());
        assertEquals(0, b.get("attempts").asInt());
        assertEquals(PschedulerResults.httpBody(stream()), r);
        assertEquals(b, PschedulerResults.archiveBody(stream()), "the same result gives the same body (idempotent ids)");
    }

    @Test
    void theLatencyDocumentIsLogstashsWithThePerfsonarChecksum() {
        ObjectNode d = LogstashDocuments.document(stream());
        assertEquals("pscheduler_latency", LogstashDocuments.dataStream(stream()));
        // {"observer_ip":null,"test":{"spec":{"dest":"127.0.0.1","ip-version":4,"packet-count":100,
        //  "packet-interval":0.01,"packet-timeout":1,"schema":1},"type":"latency"},"tool":"nmprobe"}
        assertEquals("43ae8b4745dda0d5f893749863fa865802b82d26520db2fae7af30ba0b0168d1",
                d.get("pscheduler").get("test_checksum").asText());
        assertEquals("2026-05-01T12:00:00Z", d.get("pscheduler").get("start_time").asText());
        assertEquals(2.0, d.get("pscheduler").get("duration").asDouble());
        assertEquals("nmprobe", d.get("pscheduler").get("tool").asText());
        assertEquals(PschedulerResults.runId(stream()).toString(), d.get("pscheduler").get("run_id").asText());
        assertEquals("127.0.0.1", d.get("meta").get("observer").get("ip").asText());
        assertEquals("127.0.0.1", d.get("meta").get("source").get("ip").asText());
        assertEquals("127.0.0.1", d.get("meta").get("destination").get("ip").asText());
        assertEquals(4, d.get("meta").get("ip_version").asInt());
        JsonNode res = d.get("result");
        assertEquals(0.02, res.get("packets").get("loss").asDouble(), 1e-12);
        assertEquals(98, res.get("packets").get("received").asInt());
        assertEquals(0.25, res.get("max_clock_error").asDouble());
        assertEquals(10.0, res.get("latency").get("min").asDouble());
        assertEquals(10.2, res.get("latency").get("max").asDouble());
        assertEquals(10.1, res.get("latency").get("mean").asDouble(), 1e-9);
        assertEquals(10.0, res.get("latency").get("median").asDouble());
        assertEquals(10.2, res.get("latency").get("p_95").asDouble());
        assertTrue(res.get("succeeded").asBoolean());
        assertFalse(d.has("run") || d.has("task") || d.has("tool"), "the pipeline removes run, task and tool");
    }

    @Test
    void rttThroughputAndTraceDocumentsUsePerfsonarsFieldsAndUnits() {
        JsonNode rtt = LogstashDocuments.document(roundTrip()).get("result");
        assertEquals(0.25, rtt.get("packets").get("loss").asDouble());
        assertEquals(0.001, rtt.get("rtt").get("min").asDouble());
        assertEquals(3, rtt.get("packets").get("json").size());
        assertEquals(0.1, LogstashDocuments.document(roundTrip()).get("test").get("spec").get("interval").asDouble());
        JsonNode tp = LogstashDocuments.document(tcp());
        assertEquals(9e8, tp.get("result").get("throughput").asDouble(), 1e-3);
        assertEquals(5, tp.get("result").get("retransmits").asInt());
        assertEquals(2, tp.get("result").get("streams").get("json").size());
        assertEquals(2.0, tp.get("test").get("spec").get("duration").asDouble());
        assertEquals(6, tp.get("meta").get("ip_version").asInt());
        JsonNode tr = LogstashDocuments.document(hops()).get("result");
        assertEquals(3, tr.get("hop").get("count").asInt());
        assertEquals(1, tr.get("hop").get("error_count").asInt());
        assertEquals("10.0.0.1 10.0.0.2", tr.get("hop").get("ip_str").asText());
        // fingerprint SHA256 of '|[@metadata][result][hop][ip]|["10.0.0.1", "10.0.0.2"]|'
        assertEquals("98293e4d2326303c29542b22cc0e5a30a41c878bbe1b759c29c17c6e98635737", tr.get("hop").get("checksum").asText());
    }

    @Test
    void numbersAreCanonicalAsRubysToJsonC14n() {
        String[][] cases = {{"10", "10"}, {"0.1", "0.1"}, {"1.5", "1.5"}, {"1E-7", "1e-7"}, {"1E+21", "1e+21"},
                {"123456.789", "123456.789"}, {"0.000123", "0.000123"}, {"-2.5", "-2.5"}, {"100.0", "100"}, {"0", "0"}};
        for (String[] c : cases) {
            assertEquals(c[1], RubyJson.number(new BigDecimal(c[0])), c[0]);
        }
        assertEquals("{\"a\":[1,\"x\"],\"b\":null}", RubyJson.canonical(new ObjectMapper().createObjectNode()
                .putNull("b").set("a", new ObjectMapper().createArrayNode().add(1).add("x"))));
    }
}
