package org.nmws.tests.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.nmws.tests.KafkaEngine;
import org.nmws.tests.OpenSearchEngine;
import org.nmws.tests.RabbitMqEngine;

/**
 * Issue 23's lab proof: three points in three namespaces (A, the router R1, B), each with its
 * responder and service, all driven by one pSConfig template (a mesh of round trips every 5 s)
 * whose task archives to OpenSearch, RabbitMQ and Kafka at once, the three started on the test's
 * management address. A delay line holds UDP between A and B 5 ms each way. B has a second
 * address, B2, behind a 40 Mbit/s token bucket where R1 drops exactly one UDP packet in 20:
 * the template's one-way latency (100 packets) and throughput tasks from A to B2 archive to
 * OpenSearch. Checked: every result each point stored is in each of its archives exactly once
 * (counted by id); OpenSearch answers Grafana's queries with the lab's truth (min of
 * result.rtt.min per test.spec.source and dest: A <-> B at least 10 ms, the pairs through no
 * delay line under 2 ms; max of result.packets.loss A -> B2 exactly 0.05; avg of
 * result.throughput A -> B2 within 85-100 % of 40 Mbit/s); and A's grid, read from the cluster
 * for the points it holds no schedules of, shows every pair fresh.
 */
class LabPsConfigArchivesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DELAY_US = 5_000;
    /** B2's bottleneck, and its loss: one UDP packet in LOSS_N. */
    private static final int MBIT = 40;
    private static final int LOSS_N = 20;
    private static final String QUEUE = "nmws-lab";
    private static final String TOPIC = "pscheduler-lab";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void threePointsOfOnePsConfigMeshArchiveEveryResultOnceToOpenSearchRabbitMqAndKafka() throws Exception {
        try (NetLab lab = NetLab.create(1)) {
            String rMgmt = lab.addManagementLink(lab.router(1));
            String bMgmt = lab.addManagementLink(lab.b());
            lab.routeToManagementHost(lab.router(1), rMgmt);
            lab.routeToManagementHost(lab.b(), bMgmt);
            lab.delayLine(DELAY_US, true);
            String b2 = lab.addBAddress(3);
            lab.shapePerDestination(Map.of(b2, MBIT));
            lab.dropEveryNthTo(b2, LOSS_N, "udp");
            String host = lab.managementHostAddress();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            Future<OpenSearchEngine> os = pool.submit((Callable<OpenSearchEngine>) () -> OpenSearchEngine.start(host));
            Future<RabbitMqEngine> rq = pool.submit((Callable<RabbitMqEngine>) () -> RabbitMqEngine.start(host));
            Future<KafkaEngine> kf = pool.submit((Callable<KafkaEngine>) () -> KafkaEngine.start(host));
            pool.shutdown();
            try {
                OpenSearchEngine opensearch = os.get();
                RabbitMqEngine rabbit = rq.get();
                KafkaEngine kafka = kf.get();
                try (Connection c = rabbit(rabbit); Channel ch = c.createChannel()) {
                    ch.queueDeclare(QUEUE, true, false, false, null);
                }
                run(lab, rMgmt, bMgmt, b2, opensearch, rabbit, kafka);
            } finally {
                // every engine that started is stopped, also when another failed to start
                Exception first = null;
                for (Future<? extends AutoCloseable> f : List.of(kf, rq, os)) {
                    try {
                        f.get().close();
                    } catch (java.util.concurrent.ExecutionException notStarted) {
                        // its start failed and cleaned up after itself
                    } catch (Exception e) {
                        if (first == null) {
                            first = e;
                        } else {
                            first.addSuppressed(e);
                        }
                    }
                }
                if (first != null) {
                    throw first;
                }
            }
        }
    }

    private void run(NetLab lab, String rMgmt, String bMgmt, String b2, OpenSearchEngine opensearch, RabbitMqEngine rabbit,
                     KafkaEngine kafka) throws Exception {
        Map<String, String> address = Map.of("lab-a", lab.aAddress(), "lab-r", lab.routerAddress(1), "lab-b", lab.bAddress());
        Map<String, String> ns = Map.of("lab-a", lab.a(), "lab-r", lab.router(1), "lab-b", lab.b());
        Map<String, String> mgmt = Map.of("lab-a", lab.aManagementAddress(), "lab-r", rMgmt, "lab-b", bMgmt);
        String responder = Path.of(System.getProperty("nmws.responder.bin", "../native-probe/target/native/bin/nmprobe-responder"))
                .toAbsolutePath().toString();
        for (String p : List.of("lab-a", "lab-r", "lab-b")) {
            lab.startIn(ns.get(p), List.of(responder, "-b", address.get(p), "-p", Integer.toString(LabServices.RESPONDER_PORT)),
                    "responder-" + p);
        }
        lab.startIn(lab.b(), List.of(responder, "-b", b2, "-p", Integer.toString(LabServices.RESPONDER_PORT)), "responder-b2");
        Path template = Files.createTempFile("nmws-lab-psconfig", ".json");
        Files.writeString(template, template(address, b2, opensearch, rabbit, kafka, true), StandardCharsets.UTF_8);
        Map<String, LabServices> points = new HashMap<>();
        for (String p : List.of("lab-a", "lab-r", "lab-b")) {
            points.put(p, LabServices.startPoint(lab, ns.get(p), mgmt.get(p), p, "--nmws.psconfig.file=" + template,
                    "--nmws.psconfig.self=" + address.get(p), "--nmws.psconfig.refresh=PT3S",
                    "--nmws.archivers.backoff-max=PT2S", "--nmws.limits.test-clients=10.0.0.0/8",
                    "--nmws.grid.opensearch-url=" + opensearch.url()));
        }
        waitFor("three results of every point in every archive, two of each of A's tasks to B2", Duration.ofSeconds(120), () -> {
            for (LabServices s : points.values()) {
                for (String a : List.of("os", "rmq", "kafka")) {
                    if (archive(s, a).path("delivered").asLong() < 3) {
                        return false;
                    }
                }
            }
            return count(points.get("lab-a"), "path.delay.oneWay", b2) >= 2
                    && count(points.get("lab-a"), "path.bandwidth.achievable.TCP", b2) >= 2;
        });

        // Grafana's loss and throughput panels on the results A measured to B2, complete runs all
        // (checked before the template goes, which may end a run under way)
        JsonNode[] toB2 = new JsonNode[2];
        waitFor("two latency and two throughput documents of A -> B2 searchable", Duration.ofSeconds(30), () -> {
            http("POST", opensearch.url() + "/pscheduler_*/_refresh", null);
            toB2[0] = grafana(opensearch, "latency", "{\"loss\":{\"max\":{\"field\":\"result.packets.loss\"}},"
                    + "\"lossMin\":{\"min\":{\"field\":\"result.packets.loss\"}}}", lab.aAddress(), b2);
            toB2[1] = grafana(opensearch, "throughput", "{\"tput\":{\"avg\":{\"field\":\"result.throughput\"}}}",
                    lab.aAddress(), b2);
            return toB2[0].path("doc_count").asLong() >= 2 && toB2[1].path("doc_count").asLong() >= 2;
        });
        double lossMax = toB2[0].path("loss").path("value").asDouble();
        double lossMin = toB2[0].path("lossMin").path("value").asDouble();
        assertEquals(1.0 / LOSS_N, lossMax, 1e-9, "max loss A -> B2, one packet in " + LOSS_N + " dropped: " + toB2[0]);
        assertEquals(1.0 / LOSS_N, lossMin, 1e-9, "every run of 100 packets lost exactly 5: " + toB2[0]);
        double tput = toB2[1].path("tput").path("value").asDouble();
        assertTrue(tput >= 0.85 * MBIT * 1e6 && tput <= 1.0 * MBIT * 1e6, "avg throughput A -> B2 through its " + MBIT
                + " Mbit/s bucket: " + tput / 1e6 + " Mbit/s");

        // A's grid: its own two definitions, the other four pairs from the cluster, all fresh (a pair's
        // first document may take the cluster's refresh to be searched: waited for, then checked)
        JsonNode[] grid = new JsonNode[1];
        waitFor("A's grid whole", Duration.ofSeconds(30), () -> {
            grid[0] = JSON.readTree(points.get("lab-a").get("/api/grid"));
            return gridCounts(grid[0])[0] == 7 && gridCounts(grid[0])[1] == 4;
        });
        int[] counts = gridCounts(grid[0]);
        assertEquals(7, counts[0], "every ordered pair of the mesh, and A -> B2: " + grid[0].path("cells"));
        assertEquals(4, counts[1], "the pairs of R and B read from OpenSearch: " + grid[0].path("cells"));
        for (JsonNode c : grid[0].path("cells")) {
            for (JsonNode d : c.path("definitions")) {
                assertEquals("ok", d.path("state").asText(), d.toString());
            }
        }

        // The task goes with the template's next reading; what ran is delivered and counted.
        Files.writeString(template, template(address, b2, opensearch, rabbit, kafka, false), StandardCharsets.UTF_8);
        waitFor("the template's schedules gone on every point", Duration.ofSeconds(60), () -> {
            for (LabServices s : points.values()) {
                if (s.get("/api/schedules").contains("psconfig:")) {
                    return false;
                }
            }
            return true;
        });
        // a run under way when its schedule went ends and is kept: counted once nothing moves for a period
        String[] before = {""};
        waitFor("every result stored and delivered, nothing moving", Duration.ofSeconds(90), () -> {
            String now = tally(points, address) + count(points.get("lab-a"), "path.delay.oneWay", b2) + " "
                    + count(points.get("lab-a"), "path.bandwidth.achievable.TCP", b2);
            boolean still = now.equals(before[0]) && !now.contains("backlog");
            before[0] = now;
            if (!still) {
                Thread.sleep(5500);
            }
            return still;
        });
        long stored = 0;
        Map<String, Long> delivered = new HashMap<>();
        for (Map.Entry<String, LabServices> e : points.entrySet()) {
            for (String other : address.keySet()) {
                if (!other.equals(e.getKey())) {
                    stored += JSON.readTree(e.getValue().get("/api/results?characteristic=path.delay.roundTrip&limit=1000&dst="
                            + address.get(other))).path("count").asLong();
                }
            }
            for (String a : List.of("os", "rmq", "kafka")) {
                JsonNode state = archive(e.getValue(), a);
                assertEquals(0, state.path("failed").asLong(), state.toString());
                assertEquals(0, state.path("expired").asLong(), state.toString());
                delivered.merge(a, state.path("delivered").asLong(), Long::sum);
            }
        }
        assertTrue(stored >= 9, "at least three results of each point: " + stored);
        long toB2Stored = count(points.get("lab-a"), "path.delay.oneWay", b2) + count(points.get("lab-a"),
                "path.bandwidth.achievable.TCP", b2);
        assertEquals(stored + toB2Stored, delivered.get("os"), "every stored result delivered to os once, A's to B2 too");
        for (String a : List.of("rmq", "kafka")) {
            assertEquals(stored, delivered.get(a), "every stored round trip delivered to " + a + " once");
        }
        Map<String, Integer> inOpenSearch = openSearchIds(opensearch);
        Map<String, Integer> inRabbit = rabbitIds(rabbit);
        Map<String, Integer> inKafka = kafkaIds(kafka, stored);
        assertEquals(stored + toB2Stored, inOpenSearch.size(), "OpenSearch holds every result");
        for (Map.Entry<String, Map<String, Integer>> e : Map.of("RabbitMQ", inRabbit, "Kafka", inKafka).entrySet()) {
            assertEquals(stored, e.getValue().size(), e.getKey() + " holds every round trip");
            // OpenSearch's ids are its _ids, once by construction; RabbitMQ's and Kafka's can repeat
            assertTrue(e.getValue().values().stream().allMatch(n -> n == 1), e.getKey() + " holds each once: " + e.getValue());
        }
        assertTrue(inOpenSearch.keySet().containsAll(inRabbit.keySet()), "RabbitMQ's results are OpenSearch's");
        assertEquals(inRabbit.keySet(), inKafka.keySet(), "the same results in RabbitMQ and Kafka");

        // Grafana's grid query: min of result.rtt.min by source and destination, against the lab
        JsonNode agg = JSON.readTree(http("POST", opensearch.url() + "/pscheduler_rtt/_search",
                "{\"size\":0,\"aggs\":{\"src\":{\"terms\":{\"field\":\"test.spec.source.keyword\"},\"aggs\":{\"dst\":{\"terms\":"
                        + "{\"field\":\"test.spec.dest.keyword\"},\"aggs\":{\"rtt\":{\"min\":{\"field\":\"result.rtt.min\"}}}}}}}}"));
        int pairs = 0;
        StringBuilder seen = new StringBuilder();
        for (JsonNode s : agg.path("aggregations").path("src").path("buckets")) {
            for (JsonNode d : s.path("dst").path("buckets")) {
                pairs++;
                String src = s.path("key").asText();
                String dst = d.path("key").asText();
                double ms = d.path("rtt").path("value").asDouble() * 1000;
                seen.append(String.format(java.util.Locale.ROOT, " %s->%s %.3f ms;", src, dst, ms));
                boolean delayed = (src.equals(lab.aAddress()) && dst.equals(lab.bAddress()))
                        || (src.equals(lab.bAddress()) && dst.equals(lab.aAddress()));
                if (delayed) {
                    assertTrue(ms >= 2 * DELAY_US / 1000.0 - 0.2 && ms <= 2 * DELAY_US / 1000.0 + 3, src + " -> " + dst + ": " + ms
                            + " ms through the 5 ms delay line each way");
                } else {
                    assertTrue(ms < 2, src + " -> " + dst + ": " + ms + " ms through no delay line");
                }
            }
        }
        assertEquals(6, pairs, "six ordered pairs in OpenSearch:" + seen);
        System.out.printf(java.util.Locale.ROOT, "lab psconfig: %d results of a three-point pSConfig mesh, each once in OpenSearch,"
                + " RabbitMQ and Kafka, and %d of A -> B2 in OpenSearch; Grafana's min RTT:%s max loss A -> B2 %.4f; avg throughput"
                + " A -> B2 %.2f Mbit/s; A's grid 7 pairs, 4 from OpenSearch%n", stored, toB2Stored, seen, lossMax, tput / 1e6);
    }

    /**
     * The mesh template: every ordered pair of the three, a round trip every 5 s, to the three
     * archives; from A to B2 one-way latency every 5 s and throughput (2 s) every 8 s, to OpenSearch
     * (or no task).
     */
    private static String template(Map<String, String> address, String b2, OpenSearchEngine opensearch, RabbitMqEngine rabbit,
                                   KafkaEngine kafka, boolean withTask) {
        ObjectNode t = JSON.createObjectNode();
        ObjectNode addresses = t.putObject("addresses");
        ObjectNode group = t.putObject("groups").putObject("mesh").put("type", "mesh");
        for (String p : List.of("lab-a", "lab-r", "lab-b")) {
            addresses.putObject(p).put("address", address.get(p));
            group.withArray("addresses").addObject().put("name", p);
        }
        addresses.putObject("lab-b2").put("address", b2);
        ObjectNode toB2 = ((ObjectNode) t.get("groups")).putObject("to-b2").put("type", "disjoint").put("unidirectional", true);
        toB2.withArray("a-addresses").addObject().put("name", "lab-a");
        toB2.withArray("b-addresses").addObject().put("name", "lab-b2");
        ObjectNode tests = t.putObject("tests");
        tests.putObject("rtt").put("type", "rtt").putObject("spec").put("source", "{% address[0] %}")
                .put("dest", "{% address[1] %}").put("count", 5).put("interval", "PT0.01S");
        tests.putObject("owd").put("type", "latency").putObject("spec").put("source", "{% address[0] %}")
                .put("dest", "{% address[1] %}").put("packet-count", 100).put("packet-interval", 0.01).put("packet-timeout", 1);
        tests.putObject("tput").put("type", "throughput").putObject("spec").put("source", "{% address[0] %}")
                .put("dest", "{% address[1] %}").put("duration", "PT2S");
        t.putObject("schedules").putObject("often").put("repeat", "PT5S");
        ((ObjectNode) t.get("schedules")).putObject("tput-often").put("repeat", "PT8S");
        ObjectNode archives = t.putObject("archives");
        archives.putObject("os").put("archiver", "opensearch").put("ttl", "PT10M").putObject("data")
                .put("_url", opensearch.url()).put("replicas", 0);
        archives.putObject("rmq").put("archiver", "rabbitmq").put("ttl", "PT10M").putObject("data")
                .put("_url", rabbit.url()).put("routing-key", QUEUE);
        archives.putObject("kafka").put("archiver", "kafka").put("ttl", "PT10M").putObject("data")
                .put("server", kafka.server()).put("topic", TOPIC);
        ObjectNode tasks = t.putObject("tasks");
        if (withTask) {
            ObjectNode task = tasks.putObject("rtt-mesh").put("group", "mesh").put("test", "rtt").put("schedule", "often");
            task.putArray("archives").add("os").add("rmq").add("kafka");
            tasks.putObject("owd-b2").put("group", "to-b2").put("test", "owd").put("schedule", "often").putArray("archives").add("os");
            tasks.putObject("tput-b2").put("group", "to-b2").put("test", "tput").put("schedule", "tput-often").putArray("archives")
                    .add("os");
        }
        return t.toString();
    }

    /** Results a point stored of one characteristic to one destination. */
    private static long count(LabServices s, String characteristic, String dst) throws Exception {
        return JSON.readTree(s.get("/api/results?characteristic=" + characteristic + "&limit=1000&dst=" + dst)).path("count").asLong();
    }

    /**
     * A Grafana panel's query on one test type's documents: terms on test.spec.source and dest,
     * the given metric aggregations; the bucket of src -> dst (doc_count 0 when none).
     */
    private static JsonNode grafana(OpenSearchEngine os, String type, String metrics, String src, String dst) throws Exception {
        // ignore_unavailable: before the first document of the type there is no stream yet
        JsonNode agg = JSON.readTree(http("POST", os.url() + "/pscheduler_" + type + "/_search?ignore_unavailable=true",
                "{\"size\":0,\"aggs\":{\"src\":{\"terms\":{\"field\":\"test.spec.source.keyword\"},\"aggs\":{\"dst\":{\"terms\":"
                        + "{\"field\":\"test.spec.dest.keyword\"},\"aggs\":" + metrics + "}}}}}"));
        for (JsonNode s : agg.path("aggregations").path("src").path("buckets")) {
            for (JsonNode d : s.path("dst").path("buckets")) {
                if (s.path("key").asText().equals(src) && d.path("key").asText().equals(dst)) {
                    return d;
                }
            }
        }
        return JSON.createObjectNode().put("doc_count", 0);
    }

    /** Cells of a grid and how many of its definitions came from OpenSearch. */
    private static int[] gridCounts(JsonNode grid) {
        int fromCluster = 0;
        for (JsonNode c : grid.path("cells")) {
            for (JsonNode d : c.path("definitions")) {
                fromCluster += d.path("via").asText().equals("opensearch") ? 1 : 0;
            }
        }
        return new int[] {grid.path("cells").size(), fromCluster};
    }

    /** Every point's stored results and each archive's delivered count and backlog, as one text to compare. */
    private static String tally(Map<String, LabServices> points, Map<String, String> address) throws Exception {
        StringBuilder t = new StringBuilder();
        for (Map.Entry<String, LabServices> e : new java.util.TreeMap<>(points).entrySet()) {
            for (String other : new java.util.TreeSet<>(address.keySet())) {
                if (!other.equals(e.getKey())) {
                    t.append(JSON.readTree(e.getValue().get("/api/results?characteristic=path.delay.roundTrip&limit=1000&dst="
                            + address.get(other))).path("count").asLong()).append(' ');
                }
            }
            for (String a : List.of("os", "rmq", "kafka")) {
                JsonNode state = archive(e.getValue(), a);
                t.append(a).append('=').append(state.path("delivered").asLong());
                t.append(state.path("backlog").asLong() != 0 ? " backlog " : " ");
            }
        }
        return t.toString();
    }

    private static JsonNode archive(LabServices s, String name) throws Exception {
        for (JsonNode a : JSON.readTree(s.get("/api/archivers")).path("archives")) {
            if (a.path("name").asText().equals(name)) {
                return a;
            }
        }
        return JSON.createObjectNode();
    }

    private static Map<String, Integer> openSearchIds(OpenSearchEngine os) throws Exception {
        http("POST", os.url() + "/pscheduler_*/_refresh", null);
        JsonNode r = JSON.readTree(http("POST", os.url() + "/pscheduler_*/_search",
                "{\"size\":10000,\"_source\":[\"id\"],\"query\":{\"match_all\":{}}}"));
        Map<String, Integer> ids = new HashMap<>();
        for (JsonNode hit : r.path("hits").path("hits")) {
            ids.merge(hit.path("_id").asText(), 1, Integer::sum);
        }
        return ids;
    }

    private static Map<String, Integer> rabbitIds(RabbitMqEngine rabbit) throws Exception {
        Map<String, Integer> ids = new HashMap<>();
        try (Connection c = rabbit(rabbit); Channel ch = c.createChannel()) {
            GetResponse m;
            while ((m = ch.basicGet(QUEUE, true)) != null) {
                JsonNode body = JSON.readTree(new String(m.getBody(), StandardCharsets.UTF_8));
                ids.merge(body.path("id").asText(), 1, Integer::sum);
            }
        }
        return ids;
    }

    private static Map<String, Integer> kafkaIds(KafkaEngine kafka, long expected) {
        Map<String, Integer> ids = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(KafkaEngine.consumerProps(kafka.server(), "nmws-lab"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long seen = 0;
            while (System.nanoTime() < deadline && seen < expected) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    ids.merge(r.key(), 1, Integer::sum);
                    seen++;
                }
            }
            // a little longer: a record twice would come after the ones expected
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                ids.merge(r.key(), 1, Integer::sum);
            }
        }
        return ids;
    }

    private static Connection rabbit(RabbitMqEngine rabbit) throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(rabbit.url());
        return f.newConnection();
    }

    private static String http(String method, String url, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(r.statusCode() == 200, method + " " + url + ": HTTP " + r.statusCode() + " " + r.body());
        return r.body();
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitFor(String what, Duration bound, Condition c) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!c.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + bound.toSeconds() + " s for " + what);
            }
            Thread.sleep(500);
        }
    }
}
