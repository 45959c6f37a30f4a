package org.nmws.service.perfsonar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nmws.service.NmwsApplication;
import org.nmws.service.archive.Archive;
import org.nmws.service.observation.Observation;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * esmond's API through real HTTP against the real service and its SQLite archive: a client
 * written from esmond's documented API (perfsonar_client_rest.rst) walks search, metadata key,
 * base data and summaries of every event type nmws's results have, and gets the stored values;
 * bad queries get esmond's refusals. The results are written through the archive's own API
 * (the archive's SQL is the same on both backends, tested by the archive contract tests).
 */
class EsmondApiTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static ConfigurableApplicationContext context;
    private static String base;
    private static int port;
    private static final List<Observation> LATENCY = new ArrayList<>();
    private static Observation rtt;
    private static Observation tcp;
    private static Observation trace;

    @BeforeAll
    static void start() throws Exception {
        startWith();
    }

    /** The service on its embedded archive, or on the one the arguments name (EsmondApiOnPostgresTest). */
    static void startWith(String... archiveArgs) throws Exception {
        LATENCY.clear();
        Path dir = Files.createTempDirectory("nmws-esmond");
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--nmws.data-dir=" + dir,
                "--nmws.measurement-point=esmond-test"));
        args.addAll(List.of(archiveArgs));
        context = new SpringApplicationBuilder(NmwsApplication.class).run(args.toArray(String[]::new));
        port = ((WebServerApplicationContext) context).getWebServer().getPort();
        base = "http://127.0.0.1:" + port;
        Archive archive = context.getBean(Archive.class);
        // three one-way results a minute apart, the same test: one measurement
        for (int i = 0; i < 3; i++) {
            Observation o = PschedulerFormsTest.stream();
            Observation shifted = new Observation(0, "esmond-test", o.test(), o.subject(), o.srcAddress(), o.dstAddress(),
                    o.tool(), o.toolVersion(), o.parameters(), o.environment(), o.start().plusSeconds(60L * i),
                    o.end().plusSeconds(60L * i), o.summary(), o.frames());
            LATENCY.add(archive.save(shifted));
        }
        rtt = archive.save(PschedulerFormsTest.roundTrip());
        tcp = archive.save(PschedulerFormsTest.tcp());
        trace = archive.save(PschedulerFormsTest.hops());
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    private static HttpResponse<String> get(String pathAndQuery) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(String pathAndQuery) throws Exception {
        HttpResponse<String> r = get(pathAndQuery);
        assertEquals(200, r.statusCode(), pathAndQuery + ": " + r.body());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""), "exactly, as esmond's clients compare");
        return MAPPER.readTree(r.body());
    }

    private static JsonNode eventType(JsonNode md, String name) {
        for (JsonNode e : md.get("event-types")) {
            if (e.get("event-type").asText().equals(name)) {
                return e;
            }
        }
        throw new AssertionError("no event type " + name + " in " + md);
    }

    @Test
    void aClientWalksSearchKeyBaseDataAndSummariesOfTheOneWayResults() throws Exception {
        JsonNode found = json("/esmond/perfsonar/archive/?event-type=histogram-owdelay&source=127.0.0.1&destination=127.0.0.1");
        assertEquals(1, found.size(), found.toString());
        JsonNode md = found.get(0);
        String key = LogstashDocuments.document(LATENCY.get(0)).get("pscheduler").get("test_checksum").asText();
        assertEquals(key, md.get("metadata-key").asText(), "the metadata-key is perfSONAR 5's pscheduler.test_checksum");
        assertEquals(1, md.get("metadata-count-total").asInt());
        assertEquals("/esmond/perfsonar/archive/" + key + "/", md.get("uri").asText());
        assertEquals("pscheduler/nmprobe", md.get("tool-name").asText());
        assertEquals("point-to-point", md.get("subject-type").asText());
        assertEquals("latency", md.get("pscheduler-test-type").asText());
        assertEquals(100, md.get("sample-size").asInt());
        JsonNode owd = eventType(md, "histogram-owdelay");
        assertEquals("/esmond/perfsonar/archive/" + key + "/histogram-owdelay/base", owd.get("base-uri").asText());
        JsonNode stats0 = owd.get("summaries").get(0);
        assertEquals("statistics", stats0.get("summary-type").asText());
        assertTrue(stats0.get("summary-window").isTextual(), "summary-window is a string");
        assertEquals("0", stats0.get("summary-window").asText());
        assertEquals(LATENCY.get(2).start().getEpochSecond(), owd.get("time-updated").asLong());

        JsonNode detail = json("/esmond/perfsonar/archive/" + key + "/");
        assertEquals(key, detail.get("metadata-key").asText());
        assertFalse(detail.has("metadata-count-total"), "only a search's first object counts them");

        JsonNode hist = json(owd.get("base-uri").asText());
        assertEquals(3, hist.size());
        long ts0 = LATENCY.get(0).start().getEpochSecond();
        for (int i = 0; i < 3; i++) {
            assertEquals(ts0 + 60L * i, hist.get(i).get("ts").asLong(), "ascending integer ts, the run's start");
            assertTrue(hist.get(i).get("ts").isIntegralNumber());
            assertEquals(49, hist.get(i).get("val").get("10.0").asInt());
            assertEquals(49, hist.get(i).get("val").get("10.2").asInt());
        }
        JsonNode stats = json(stats0.get("uri").asText());
        assertEquals(3, stats.size());
        assertEquals(10.0, stats.get(0).get("val").get("minimum").asDouble());
        assertEquals(10.2, stats.get(0).get("val").get("maximum").asDouble());
        assertEquals(10.1, stats.get(0).get("val").get("mean").asDouble(), 1e-9);
        assertEquals(10.0, stats.get(0).get("val").get("median").asDouble());

        JsonNode loss = json(eventType(md, "packet-loss-rate").get("base-uri").asText());
        assertEquals(0.02, loss.get(0).get("val").asDouble(), 1e-12, "a fraction from 0 to 1");
        assertEquals(100, json("/esmond/perfsonar/archive/" + key + "/packet-count-sent/base").get(0).get("val").asInt());
        assertEquals(2, json("/esmond/perfsonar/archive/" + key + "/packet-count-lost/base").get(0).get("val").asInt());
        assertEquals(0, json("/esmond/perfsonar/archive/" + key + "/packet-duplicates/base").get(0).get("val").asInt());
        assertEquals(1, json("/esmond/perfsonar/archive/" + key + "/packet-reorders/base").get(0).get("val").asInt());
        assertEquals(0.25, json("/esmond/perfsonar/archive/" + key + "/time-error-estimates/base").get(0).get("val").asDouble());
        assertEquals(0, json("/esmond/perfsonar/archive/" + key + "/failures/base").size(), "nmws keeps successful results only");
        assertEquals(0, json("/esmond/perfsonar/archive/" + key + "/histogram-ttl/base").size(), "a UDP stream keeps no TTLs");

        // the three results fall in one hour: one aggregation of 300 lost of... 6 lost of 300 sent
        long hour = Math.floorDiv(ts0, 3600) * 3600;
        JsonNode perHour = json("/esmond/perfsonar/archive/" + key + "/packet-loss-rate/aggregations/3600");
        assertEquals(1, perHour.size());
        assertEquals(hour, perHour.get(0).get("ts").asLong());
        assertEquals(0.02, perHour.get(0).get("val").asDouble(), 1e-12);
        assertEquals(300, json("/esmond/perfsonar/archive/" + key + "/packet-count-sent/aggregations/3600").get(0).get("val").asInt());
        JsonNode statsHour = json("/esmond/perfsonar/archive/" + key + "/histogram-owdelay/statistics/3600");
        assertEquals(10.1, statsHour.get(0).get("val").get("mean").asDouble(), 1e-9);

        // time filters: only the second result
        long t1 = ts0 + 60;
        assertEquals(1, json(owd.get("base-uri").asText() + "?time-start=" + t1 + "&time-end=" + t1).size());
        assertEquals(2, json(owd.get("base-uri").asText() + "?time-start=" + t1).size());
        assertEquals(1, json(owd.get("base-uri").asText() + "?limit=1&offset=2").size());
    }

    @Test
    void roundTripThroughputAndTraceMeasurementsServeTheirEventTypes() throws Exception {
        JsonNode all = json("/esmond/perfsonar/archive/");
        assertEquals(4, all.get(0).get("metadata-count-total").asInt(), all.toString());

        JsonNode r = json("/esmond/perfsonar/archive/?event-type=histogram-rtt").get(0);
        String rk = r.get("metadata-key").asText();
        assertEquals("10.0.0.1", r.get("source").asText());
        assertEquals("10.0.0.2", r.get("destination").asText());
        assertEquals("a.example", r.get("input-source").asText());
        JsonNode rttHist = json("/esmond/perfsonar/archive/" + rk + "/histogram-rtt/base").get(0).get("val");
        assertEquals(1, rttHist.get("1.0").asInt());
        assertEquals(1, rttHist.get("3.0").asInt());
        assertEquals(0.25, json("/esmond/perfsonar/archive/" + rk + "/packet-loss-rate-bidir/base").get(0).get("val").asDouble());
        assertEquals(2.0, json("/esmond/perfsonar/archive/" + rk + "/histogram-rtt/statistics/0").get(0).get("val")
                .get("mean").asDouble(), 1e-9, "ms");

        JsonNode t = json("/esmond/perfsonar/archive/?event-type=throughput").get(0);
        String tk = t.get("metadata-key").asText();
        assertEquals("tcp", t.get("ip-transport-protocol").asText());
        assertEquals(2, t.get("bw-parallel-streams").asInt());
        assertEquals(9e8, json("/esmond/perfsonar/archive/" + tk + "/throughput/base").get(0).get("val").asDouble(), 1e-3);
        assertEquals(5, json("/esmond/perfsonar/archive/" + tk + "/packet-retransmits/base").get(0).get("val").asInt());
        assertEquals(9e8, json("/esmond/perfsonar/archive/" + tk + "/throughput/averages/86400").get(0).get("val").asDouble(), 1e-3);
        JsonNode sub = json("/esmond/perfsonar/archive/" + tk + "/throughput-subintervals/base").get(0).get("val");
        assertEquals(2, sub.size());
        assertEquals(1.0, sub.get(1).get("duration").asDouble());
        assertEquals(2, json("/esmond/perfsonar/archive/" + tk + "/streams-throughput/base").get(0).get("val").size());

        JsonNode tr = json("/esmond/perfsonar/archive/?event-type=packet-trace&tool-name=pscheduler/nmprobe").get(0);
        JsonNode hops = json("/esmond/perfsonar/archive/" + tr.get("metadata-key").asText() + "/packet-trace/base").get(0).get("val");
        assertEquals(3, hops.size());
        assertEquals("10.0.0.1", hops.get(0).get("ip").asText());
        assertEquals(0.5, hops.get(0).get("rtt").asDouble(), 1e-9, "ms");
        assertEquals(3, hops.get(2).get("ttl").asInt());
        assertEquals(trace.id(), context.getBean(Archive.class).findById(trace.id(), false).get().id());
        assertTrue(rtt.id() > 0 && tcp.id() > 0);
    }

    @Test
    void pagingCarriesPreviousAndNextLinks() throws Exception {
        JsonNode page = json("/esmond/perfsonar/archive/?limit=2&offset=1");
        assertEquals(2, page.size());
        assertEquals(4, page.get(0).get("metadata-count-total").asInt());
        assertTrue(page.get(0).get("metadata-next-page").asText().contains("offset=3"));
        assertTrue(page.get(0).get("metadata-previous-page").asText().contains("offset=0"));
    }

    @Test
    void badQueriesGetEsmondsRefusals() throws Exception {
        HttpResponse<String> r = get("/esmond/perfsonar/archive/?event-type=no-such-type");
        assertEquals(400, r.statusCode());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        assertEquals("Invalid event-type parameter no-such-type", MAPPER.readTree(r.body()).get("detail").asText());
        r = get("/esmond/perfsonar/archive/?time-start=2000&time-end=1000");
        assertEquals(400, r.statusCode());
        assertEquals("Requested start time must be less than end time", MAPPER.readTree(r.body()).get("detail").asText());
        r = get("/esmond/perfsonar/archive/?limit=999999999");
        assertEquals(400, r.statusCode());
        assertEquals("limit parameter cannot exceed 10000", MAPPER.readTree(r.body()).get("detail").asText());
        r = get("/esmond/perfsonar/archive/?limit=99999999999999999999");
        assertEquals(400, r.statusCode(), "a number too long is refused, not parsed");
        r = get("/esmond/perfsonar/archive/0123/histogram-owdelay/base");
        assertEquals(404, r.statusCode());
        String key = json("/esmond/perfsonar/archive/?event-type=histogram-owdelay").get(0).get("metadata-key").asText();
        assertEquals(400, get("/esmond/perfsonar/archive/" + key + "/histogram-owdelay/statistics/60").statusCode());
        assertEquals(400, get("/esmond/perfsonar/archive/" + key + "/throughput/base").statusCode());
        assertEquals(404, get("/esmond/perfsonar/archive/nokey/").statusCode());
    }

    @Test
    void unencodedQueryValuesAreAccepted() throws Exception {
        // as scripts send them: a bracketed IPv6 literal and a slash, unencoded, over a raw socket
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(("GET /esmond/perfsonar/archive/?source=[::1]&tool-name=pscheduler/nmprobe HTTP/1.1\r\n"
                    + "Host: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String status = in.readLine();
            StringBuilder rest = new StringBuilder();
            for (String line; (line = in.readLine()) != null; ) {
                rest.append(line).append('\n');
            }
            assertEquals("HTTP/1.1 200 ", status, rest.toString());
            assertTrue(rest.toString().contains("\"source\" : \"::1\"") || rest.toString().contains("\"source\": \"::1\""),
                    "the TCP test from ::1 is found: " + rest);
        }
    }

    @Test
    void aStoredResultIsServedInPschedulersForms() throws Exception {
        JsonNode r = json("/api/results/" + LATENCY.get(0).id() + "/pscheduler");
        assertEquals(100, r.get("packets-sent").asInt());
        assertTrue(new PschedulerSchemas().problems(PschedulerType.LATENCY, r).isEmpty());
        JsonNode body = json("/api/results/" + LATENCY.get(0).id() + "/pscheduler?form=archive");
        assertEquals("latency", body.get("result").get("test").get("type").asText());
        JsonNode doc = json("/api/results/" + LATENCY.get(0).id() + "/pscheduler?form=document");
        assertEquals(0.02, doc.get("result").get("packets").get("loss").asDouble(), 1e-12);
        JsonNode udp = json("/api/results/" + LATENCY.get(0).id() + "/pscheduler?type=throughput");
        assertTrue(new PschedulerSchemas().problems(PschedulerType.THROUGHPUT, udp).isEmpty());
        HttpResponse<String> bad = get("/api/results/" + rtt.id() + "/pscheduler?type=latency");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().contains("no pScheduler latency form"), bad.body());
        assertEquals(404, get("/api/results/999999/pscheduler").statusCode());
    }
}
