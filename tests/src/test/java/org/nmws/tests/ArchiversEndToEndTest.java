package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import java.io.File;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.nmws.service.archive.Archive;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.nmws.service.archive.JdbcArchive;
import org.nmws.service.observation.Observation;
import org.nmws.service.perfsonar.LogstashDocuments;
import org.nmws.service.perfsonar.PschedulerResults;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 23, item 3: results of real loopback tests, by schedules through the real service (made
 * by an NMWG request, the JSON API and a pSConfig template's task with the archives it defines), sent
 * to a real OpenSearch node, a real RabbitMQ broker and a real Kafka broker at once (each
 * started here on loopback). Every result is in each exactly once (counted by its id), also
 * after OpenSearch and then RabbitMQ were stopped during the run (until results waited and were retried); OpenSearch answers
 * the queries perfSONAR's Grafana dashboards make (terms on test.spec.source/dest, max of
 * result.packets.loss, min of result.rtt.min, avg of result.throughput) with the archive's
 * truth; the dashboard's Archives view shows the figures. Then the service jar, killed with results in its outbox, delivers them once after its
 * restart. Figures are printed for the notes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ArchiversEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * How long each archive is kept down: -Dnmws.archive.down=PT60S for the longer run in the
     * notes keeps it down that long; unset, until what is asserted of the outage holds, at most 8 s.
     */
    private static final String DOWN_SET = System.getProperty("nmws.archive.down");
    private static final Duration DOWN = Duration.parse(DOWN_SET != null ? DOWN_SET : "PT8S");
    private static final String QUEUE = "nmws-results";
    private static final String TOPIC = "pscheduler";

    private OpenSearchEngine opensearch;
    private RabbitMqEngine rabbit;
    private KafkaEngine kafka;
    private Responder responder;

    @BeforeAll
    void startEngines() throws Exception {
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Future<OpenSearchEngine> os = pool.submit((Callable<OpenSearchEngine>) OpenSearchEngine::start);
            Future<RabbitMqEngine> rq = pool.submit((Callable<RabbitMqEngine>) RabbitMqEngine::start);
            Future<KafkaEngine> kf = pool.submit((Callable<KafkaEngine>) KafkaEngine::start);
            opensearch = os.get();
            rabbit = rq.get();
            kafka = kf.get();
        } finally {
            pool.shutdown();
        }
        responder = Responder.start();
        System.out.printf("archivers: OpenSearch, RabbitMQ and Kafka up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        try (Connection c = rabbitConnection(); Channel ch = c.createChannel()) {
            ch.queueDeclare(QUEUE, true, false, false, null); // the default exchange routes by the queue's name
        }
    }

    @AfterAll
    void stopEngines() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {responder, kafka, rabbit, opensearch}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private String archives() {
        ArrayNode a = JSON.createArrayNode();
        a.addObject().put("name", "os").put("archiver", "opensearch").put("ttl", "PT10M").putObject("data")
                .put("_url", opensearch.url()).put("replicas", 0);
        a.addObject().put("name", "rmq").put("archiver", "rabbitmq").put("ttl", "PT10M").putObject("data")
                .put("_url", rabbit.url()).put("routing-key", QUEUE);
        a.addObject().put("name", "kafka").put("archiver", "kafka").put("ttl", "PT10M").putObject("data")
                .put("server", kafka.server()).put("topic", TOPIC);
        return a.toString();
    }

    /**
     * A pSConfig template whose latency task (this point to 127.0.0.2, every 3 s) names the same
     * three archives, defined in the template.
     */
    private String template(int farPort) throws Exception {
        ObjectNode t = JSON.createObjectNode();
        t.putObject("addresses").putObject("p1").put("address", "127.0.0.1");
        ((ObjectNode) t.get("addresses")).putObject("p2").put("address", "127.0.0.2").putObject("_meta")
                .put("nmws-responder-port", farPort);
        ObjectNode group = t.putObject("groups").putObject("pair").put("type", "disjoint").put("unidirectional", true);
        group.putArray("a-addresses").addObject().put("name", "p1");
        group.putArray("b-addresses").addObject().put("name", "p2");
        t.putObject("tests").putObject("owd").put("type", "latency").putObject("spec").put("source", "{% address[0] %}")
                .put("dest", "{% address[1] %}").put("packet-count", 20).put("packet-interval", 0.01).put("packet-timeout", 1);
        t.putObject("schedules").putObject("often").put("repeat", "PT3S");
        ObjectNode archives = t.putObject("archives");
        for (JsonNode a : JSON.readTree(archives())) {
            ObjectNode spec = a.deepCopy();
            archives.set(spec.remove("name").asText(), spec); // named by its key, as pSConfig names them
        }
        ObjectNode task = t.putObject("tasks").putObject("owd-pair").put("group", "pair").put("test", "owd").put("schedule", "often");
        task.putArray("archives").add("os").add("rmq").add("kafka");
        return t.toString();
    }

    @Test
    @Order(1)
    void everyResultReachesEachArchiveOnceAlsoWhenOpenSearchAndThenRabbitMqAreDown() throws Exception {
        Path data = Files.createTempDirectory("nmws-archivers");
        try (Responder far = Responder.start("127.0.0.2")) {
            Path template = data.resolve("template.json");
            Files.writeString(template, template(far.port));
            String[] args = {"--nmws.responder-port=" + responder.port, "--nmws.measurement-point=point-arch",
                    "--nmws.archivers.backoff-max=PT2S", "--nmws.psconfig.file=" + template, "--nmws.psconfig.self=127.0.0.1",
                    "--nmws.psconfig.refresh=PT2S"};
            try (Service service = Service.start(data, args)) {
                archivedOnce(service, data);
            }
        } finally {
            Engines.deleteTree(data);
        }
    }

    private void archivedOnce(Service service, Path data) throws Exception {
        {
            // the round trips by an NMWG request (schedule.archives), the throughput by the JSON API
            org.w3c.dom.Element made = Service.validatedMessage(service.soap11(SoapEndToEndTest.measurementRequest("127.0.0.1", 10,
                    "<nmwg:parameter name=\"schedule.period\">PT1S</nmwg:parameter>"
                            + "<nmwg:parameter name=\"schedule.name\">rtt-arch</nmwg:parameter>"
                            + "<nmwg:parameter name=\"schedule.archives\">" + archives() + "</nmwg:parameter>")).body());
            assertEquals("success.schedule", made.getElementsByTagNameNS(Service.NMWG, "eventType").item(0).getTextContent(),
                    made.getTextContent());
            SoapEndToEndTest.assertError(service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 10,
                    "<nmwg:parameter name=\"schedule.period\">PT1S</nmwg:parameter>"
                            + "<nmwg:parameter name=\"schedule.archives\">[{\"archiver\":\"esmond\",\"data\":{}}]</nmwg:parameter>"),
                    "application/xml", null), "error.common.parameter");
            put(service, "tcp-arch", "{\"characteristic\":\"path.bandwidth.achievable.TCP\",\"dst\":\"127.0.0.1\",\"period\":\"PT5S\","
                    + "\"parameters\":{\"timeDuration\":\"0.5\"},\"archives\":" + archives() + "}");
            Archive archive = service.context.getBean(Archive.class);
            waitFor("three results delivered to every archive", Duration.ofSeconds(60),
                    () -> delivered(service, "os") >= 3 && delivered(service, "rmq") >= 3 && delivered(service, "kafka") >= 3);

            long[] osDown = down("OpenSearch", service, "os", opensearch::stop, opensearch::startAgain);
            long[] rmqDown = down("RabbitMQ", service, "rmq", rabbit::stop, rabbit::startAgain);

            delete(service, "rtt-arch");
            delete(service, "tcp-arch");
            Path file = Path.of(service.context.getEnvironment().getProperty("nmws.psconfig.file"));
            ObjectNode none = (ObjectNode) JSON.readTree(Files.readString(file));
            none.putObject("tasks"); // the task removed: its schedule goes at the next read
            Files.writeString(file, none.toString());
            waitFor("the template's schedule gone at its re-read", Duration.ofSeconds(90),
                    () -> service.get("/api/schedules/psconfig:owd-pair:p1:p2/runs").statusCode() == 404);
            Thread.sleep(1500); // a run under way when its schedule went ends and is kept
            waitFor("every backlog drained", Duration.ofSeconds(90), () -> backlogs(service) == 0);
            Map<String, Observation> expected = new TreeMap<>();
            archive.forEach(Instant.EPOCH, Instant.now().plusSeconds(60), true,
                    o -> expected.put(PschedulerResults.runId(o).toString(), o));
            assertTrue(expected.size() >= 10, "results kept: " + expected.size());

            Map<String, Integer> inOpenSearch = openSearchIds();
            Map<String, Integer> inRabbit = rabbitIds();
            Map<String, Integer> inKafka = kafkaIds(expected.size());
            assertExactlyOnce("OpenSearch", expected, inOpenSearch);
            assertExactlyOnce("RabbitMQ", expected, inRabbit);
            assertExactlyOnce("Kafka", expected, inKafka);
            JsonNode state = get(service, "/api/archivers");
            for (JsonNode a : state.path("archives")) {
                assertEquals(0, a.path("failed").asLong(), a.toString());
                assertEquals(0, a.path("expired").asLong(), a.toString());
                assertEquals(0, a.path("backlog").asLong(), a.toString());
            }
            // written into data streams made by nmws's index template (replicas 0 on one node)
            JsonNode streams = JSON.readTree(Engines.http("GET", opensearch.url() + "/_data_stream/pscheduler_*", null, null).body());
            assertEquals(List.of("pscheduler_latency", "pscheduler_rtt", "pscheduler_throughput"), streams.findValuesAsText("name").stream()
                    .filter(n -> n.startsWith("pscheduler_")).sorted().toList(), streams.toString());
            JsonNode template = JSON.readTree(Engines.http("GET", opensearch.url() + "/_index_template/pscheduler", null, null).body());
            assertEquals("0", template.path("index_templates").path(0).path("index_template").path("template").path("settings")
                    .path("index").path("number_of_replicas").asText(), template.toString());
            grafanaQueries(expected);
            gridFromOpenSearch(data, expected);
            dashboardShows(service, get(service, "/api/archivers"));
            String prom = service.get("/actuator/prometheus").body();
            assertTrue(prom.contains("nmws_archive_delivered_total{archive=\"os\",archiver=\"opensearch\"} " + expected.size()
                    + ".0"), "delivered in the metrics");
            System.out.printf("archivers: %d results (%d rtt, %d throughput, %d latency by pSConfig), each once in OpenSearch, RabbitMQ and Kafka;"
                            + " OpenSearch down %.1f s: backlog up to %d, drained %.1f s after it was back; RabbitMQ down %.1f s:"
                            + " backlog up to %d, drained %.1f s after it was back%n", expected.size(),
                    expected.values().stream().filter(o -> o.test().name().equals("ROUND_TRIP")).count(),
                    expected.values().stream().filter(o -> o.test().name().equals("TCP_STREAM")).count(),
                    expected.values().stream().filter(o -> o.test().name().equals("UDP_STREAM")).count(),
                    osDown[2] / 1000.0, osDown[0], osDown[1] / 1000.0, rmqDown[2] / 1000.0, rmqDown[0], rmqDown[1] / 1000.0);
        }
    }

    /**
     * Stops an engine while the schedules run (for DOWN when nmws.archive.down is set; else until
     * three results wait, the archive is retrying and has retried twice, in two failed rounds or
     * more, at most DOWN), starts it
     * again, and returns the largest backlog seen, the milliseconds from its return until the
     * archive's backlog was empty and the milliseconds it was down.
     */
    private long[] down(String what, Service service, String archive, ThrowingRunnable stop, ThrowingRunnable start)
            throws Exception {
        JsonNode up = archiveState(service, archive);
        long retriedBefore = up.path("retried").asLong();
        java.util.Set<String> failedRounds = new java.util.HashSet<>(); // each failed round sets lastErrorAt anew
        stop.run();
        long stopped = System.nanoTime();
        long until = stopped + DOWN.toNanos();
        long max = 0;
        while (System.nanoTime() < until) {
            JsonNode now = archiveState(service, archive);
            max = Math.max(max, now.path("backlog").asLong());
            if (now.path("lastErrorAt").isTextual() && !now.path("lastErrorAt").equals(up.path("lastErrorAt"))) {
                failedRounds.add(now.path("lastErrorAt").asText());
            }
            if (DOWN_SET == null && max >= 3 && now.path("state").asText().equals("retrying")
                    && now.path("retried").asLong() >= retriedBefore + 2 && failedRounds.size() >= 2) {
                break;
            }
            Thread.sleep(DOWN_SET == null ? 200 : 500);
        }
        max = Math.max(max, backlog(service, archive));
        long downMs = (System.nanoTime() - stopped) / 1_000_000;
        assertTrue(max >= 3, what + " down " + downMs / 1000.0 + " s: results wait in the outbox (" + max + ")");
        JsonNode a = archiveState(service, archive);
        assertEquals("retrying", a.path("state").asText(), a.toString());
        start.run();
        long back = System.nanoTime();
        waitFor(what + "'s backlog drained", Duration.ofSeconds(60), () -> backlog(service, archive) <= 2);
        return new long[] {max, (System.nanoTime() - back) / 1_000_000, downMs};
    }

    @Test
    @Order(2)
    void aServiceKilledWithResultsInItsOutboxDeliversThemOnceAfterItsRestart() throws Exception {
        Path jar = Path.of(System.getProperty("nmws.service.jar", "../service/target/nmws-service-0.1.0-SNAPSHOT-exec.jar"));
        assertTrue(Files.isReadable(jar), "service jar missing: " + jar.toAbsolutePath() + " (mvn -pl service package)");
        Path data = Files.createTempDirectory("nmws-archivers-killed");
        int port = Responder.freePort();
        ArrayNode os = JSON.createArrayNode();
        os.addObject().put("name", "os").put("archiver", "opensearch").putObject("data").put("_url", opensearch.url());
        List<String> args = new ArrayList<>(List.of("--server.port=" + port, "--nmws.data-dir=" + data,
                "--nmws.responder-port=" + responder.port, "--nmws.measurement-point=point-arch-killed",
                "--nmws.archivers.backoff-max=PT1S",
                "--nmws.scheduler.schedules[0].name=rtt-killed",
                "--nmws.scheduler.schedules[0].characteristic=path.delay.roundTrip",
                "--nmws.scheduler.schedules[0].dst=127.0.0.1", "--nmws.scheduler.schedules[0].period=PT1S",
                "--nmws.scheduler.schedules[0].parameters.count=5", "--nmws.scheduler.schedules[0].parameters.interval=0.01",
                "--nmws.scheduler.schedules[0].archives=" + os));
        opensearch.stop();
        Process first = ServiceProcess.start(jar, args, data.resolve("first.log"), port);
        String base = "http://127.0.0.1:" + port;
        long atKill;
        try {
            waitFor("results waiting in the outbox", Duration.ofSeconds(60), () -> backlogAt(base, "os") >= 4);
            atKill = backlogAt(base, "os");
            ServiceProcess.kill9(first);
        } finally {
            first.destroyForcibly();
            opensearch.startAgain();
        }
        args.add("--nmws.scheduler.enabled=false"); // no new runs: what is delivered is what the outbox held
        long restarted = System.nanoTime();
        Process second = ServiceProcess.start(jar, args, data.resolve("second.log"), port);
        try {
            waitFor("the outbox drained after the restart", Duration.ofSeconds(60), () -> backlogAt(base, "os") == 0
                    && deliveredAt(base, "os") > 0);
            long drainedMs = (System.nanoTime() - restarted) / 1_000_000;
            Map<String, Observation> expected = new TreeMap<>();
            try (SingleConnectionDataSource ds = new SingleConnectionDataSource("jdbc:sqlite:" + data.resolve("nmws.db"), true)) {
                new JdbcArchive(new JdbcTemplate(ds), new TransactionTemplate(new DataSourceTransactionManager(ds)), JSON)
                        .forEach(Instant.EPOCH, Instant.now().plusSeconds(60), false,
                                o -> expected.put(PschedulerResults.runId(o).toString(), o));
            }
            Map<String, Integer> found = openSearchIds();
            found.keySet().retainAll(expected.keySet());
            assertExactlyOnce("OpenSearch after the kill", expected, found);
            System.out.printf("archivers: killed with %d results in the outbox (%d kept in all); after the restart all %d in"
                    + " OpenSearch once, the outbox empty %.1f s after the restart began%n", atKill, expected.size(),
                    expected.size(), drainedMs / 1000.0);
        } finally {
            Engines.stop(second, Duration.ofSeconds(30));
            Engines.deleteTree(data);
        }
    }

    /**
     * Kafka over TLS (issue 23): results reach a broker's TLS listener when the archive names
     * the broker's CA, each once; an archive naming another CA delivers nothing and says why,
     * its results kept in the outbox; a broker whose certificate names another host is refused
     * unless the archive says ssl_checkhostname false; a client that is no admin may not name this
     * host's files.
     */
    @Test
    @Order(3)
    void kafkaOverTlsDeliversOnceAndAnUntrustedBrokerIsAClearErrorNotALoss() throws Exception {
        Path data = Files.createTempDirectory("nmws-archivers-tls");
        KafkaEngine.selfSigned(data, "other"); // a CA the broker's certificate is not signed by
        ArrayNode archives = JSON.createArrayNode();
        archives.addObject().put("name", "kafka-tls").put("archiver", "kafka").putObject("data").put("server", kafka.sslServer())
                .put("topic", "nmws-tls").put("security_protocol", "SSL").put("_ssl_cafile", kafka.caPem().toString());
        // the listener that asks for a client certificate: this archive presents the one it trusts
        archives.addObject().put("name", "kafka-mtls").put("archiver", "kafka").putObject("data").put("server", kafka.mtlsServer())
                .put("topic", "nmws-mtls").put("security_protocol", "SSL").put("_ssl_cafile", kafka.caPem().toString())
                .put("_ssl_certfile", kafka.clientPem().toString()).put("_ssl_keyfile", kafka.clientKey().toString());
        // a broker whose certificate names another host: refused unless ssl_checkhostname is false
        archives.addObject().put("name", "kafka-othername").put("archiver", "kafka").putObject("data")
                .put("server", kafka.otherNameServer()).put("topic", "nmws-othername").put("security_protocol", "SSL")
                .put("_ssl_cafile", kafka.otherNamePem().toString());
        archives.addObject().put("name", "kafka-nocheck").put("archiver", "kafka").putObject("data")
                .put("server", kafka.otherNameServer()).put("topic", "nmws-nocheck").put("security_protocol", "SSL")
                .put("_ssl_cafile", kafka.otherNamePem().toString()).put("ssl_checkhostname", false);
        archives.addObject().put("name", "kafka-untrusted").put("archiver", "kafka").putObject("data")
                .put("server", kafka.sslServer()).put("topic", "nmws-tls-untrusted").put("security_protocol", "SSL")
                .put("_ssl_cafile", data.resolve("other.pem").toString());
        String[] args = {"--nmws.responder-port=" + responder.port, "--nmws.measurement-point=point-arch-tls",
                "--nmws.archivers.backoff-max=PT1S",
                "--nmws.scheduler.schedules[0].name=rtt-tls",
                "--nmws.scheduler.schedules[0].characteristic=path.delay.roundTrip",
                "--nmws.scheduler.schedules[0].dst=127.0.0.1", "--nmws.scheduler.schedules[0].period=PT1S",
                "--nmws.scheduler.schedules[0].parameters.count=5", "--nmws.scheduler.schedules[0].parameters.interval=0.01",
                "--nmws.scheduler.schedules[0].archives=" + archives};
        try (Service service = Service.start(data.resolve("point"), args)) {
            waitFor("three results delivered over TLS, also with a client certificate", Duration.ofSeconds(60),
                    () -> delivered(service, "kafka-tls") >= 3 && delivered(service, "kafka-mtls") >= 3
                            && delivered(service, "kafka-nocheck") >= 3);
            waitFor("the untrusted broker's failure recorded", Duration.ofSeconds(60),
                    () -> !archiveState(service, "kafka-untrusted").path("lastError").isNull()
                            && archiveState(service, "kafka-untrusted").path("lastError").isTextual());
            waitFor("the other name's failure recorded", Duration.ofSeconds(60),
                    () -> archiveState(service, "kafka-othername").path("lastError").isTextual());
            JsonNode otherName = archiveState(service, "kafka-othername");
            assertEquals(0, otherName.path("delivered").asLong(), "the name is checked by default: " + otherName);
            assertTrue(otherName.path("lastError").asText().contains("SSL"), otherName.toString());
            JsonNode untrusted = archiveState(service, "kafka-untrusted");
            assertEquals(0, untrusted.path("delivered").asLong(), untrusted.toString());
            assertTrue(untrusted.path("backlog").asLong() >= 1, "its results wait in the outbox: " + untrusted);
            String why = untrusted.path("lastError").asText();
            assertTrue(why.contains("SSL") || why.contains("PKIX") || why.contains("certif"), "the error says it is TLS: " + why);
            // the spec shown never carries the file names (fields with '_' are private, as pScheduler's)
            assertTrue(!untrusted.path("spec").toString().contains("other.pem"), untrusted.path("spec").toString());

            // A client that is no admin may not make this host read its files.
            String body = "{\"characteristic\":\"path.delay.roundTrip\",\"dst\":\"127.0.0.1\",\"period\":\"PT1S\",\"archives\":"
                    + "[{\"archiver\":\"kafka\",\"data\":{\"server\":\"" + kafka.sslServer() + "\",\"topic\":\"x\","
                    + "\"security_protocol\":\"SSL\",\"_ssl_cafile\":\"/etc/shadow\"}}]}";
            HttpResponse<String> refused = Engines.HTTP.send(HttpRequest.newBuilder(URI.create(service.baseUrl
                    + "/api/schedules/rtt-tls-client")).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("_ssl_cafile, a file on this host"), refused.body());

            long delivered = delivered(service, "kafka-tls") + delivered(service, "kafka-mtls") + delivered(service, "kafka-nocheck");
            Map<String, Integer> ids = new HashMap<>();
            Map<String, Object> props = new HashMap<>(KafkaEngine.consumerProps(kafka.sslServer(), "nmws-test-tls"));
            props.put("security.protocol", "SSL");
            props.put("ssl.truststore.type", "PEM");
            props.put("ssl.truststore.location", kafka.caPem().toString());
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of("nmws-tls", "nmws-mtls", "nmws-nocheck"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline && ids.values().stream().mapToInt(Integer::intValue).sum() < delivered) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        assertEquals(r.key(), JSON.readTree(r.value()).path("id").asText());
                        ids.merge(r.topic() + "/" + r.key(), 1, Integer::sum);
                    }
                }
            }
            assertTrue(ids.size() >= delivered, "every result delivered over TLS is in its topic: " + ids.size() + " of " + delivered);
            assertTrue(ids.values().stream().allMatch(n -> n == 1), "each once in each archive's topic: " + ids);
            System.out.printf("archivers: %d results to Kafka over TLS (with and without a client certificate), each once per"
                    + " archive; the broker under another CA: 0 delivered,"
                    + " %d held, \"%s\"%n", ids.size(), untrusted.path("backlog").asLong(), why.length() > 120 ? why.substring(0, 120) : why);
        } finally {
            Engines.deleteTree(data);
        }
    }

    /** The dashboard's Archives view, in Debian's chromium, shows each archive's figures as /api/archivers has them. */
    private static void dashboardShows(Service service, JsonNode state) {
        ChromeOptions options = new ChromeOptions().setBinary("/usr/bin/chromium")
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage");
        ChromeDriverService driver = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort().build();
        ChromeDriver browser = new ChromeDriver(driver, options);
        try {
            browser.get(service.baseUrl + "/dashboard/#archives");
            WebElement view = browser.findElement(By.id("view"));
            new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> !"loading".equals(view.getAttribute("data-state")));
            assertEquals("ready", view.getAttribute("data-state"), () -> browser.findElement(By.id("message")).getText());
            for (JsonNode a : state.path("archives")) {
                List<WebElement> td = browser.findElement(By.cssSelector("#archives tr[data-name='" + a.path("name").asText() + "']"))
                        .findElements(By.tagName("td"));
                assertEquals(a.path("archiver").asText(), td.get(1).getText());
                assertEquals(a.path("destination").asText(), td.get(2).getText());
                assertEquals("ok", td.get(3).getText());
                assertEquals("0", td.get(4).getText());
                assertEquals(a.path("delivered").asText(), td.get(6).getText());
                assertEquals(a.path("retried").asText(), td.get(7).getText());
            }
        } finally {
            browser.quit();
        }
    }

    private void grafanaQueries(Map<String, Observation> expected) throws Exception {
        // Truth from the archive, in the documents' units: the worst loss, the least round trip, the mean throughput.
        double maxLoss = 0;
        double minRtt = Double.MAX_VALUE;
        double sumTput = 0;
        int tputs = 0;
        String source = null;
        String dest = null;
        double latencyLoss = 0;
        int latencies = 0;
        for (Observation o : expected.values()) {
            ObjectNode doc = LogstashDocuments.document(o);
            switch (LogstashDocuments.dataStream(o)) {
                case "pscheduler_rtt" -> {
                    maxLoss = Math.max(maxLoss, doc.path("result").path("packets").path("loss").asDouble());
                    minRtt = Math.min(minRtt, doc.path("result").path("rtt").path("min").asDouble());
                    source = doc.path("test").path("spec").path("source").asText(null);
                    dest = doc.path("test").path("spec").path("dest").asText();
                }
                case "pscheduler_throughput" -> {
                    sumTput += doc.path("result").path("throughput").asDouble();
                    tputs++;
                }
                case "pscheduler_latency" -> {
                    latencyLoss = Math.max(latencyLoss, doc.path("result").path("packets").path("loss").asDouble());
                    latencies++;
                }
                default -> throw new AssertionError(LogstashDocuments.dataStream(o));
            }
        }
        assertTrue(tputs > 0, "throughput results kept");
        assertTrue(latencies > 0, "latency results kept");
        // the pSConfig task's one-way tests: the grid cell of 127.0.0.1 -> 127.0.0.2, as the latency dashboard asks it
        JsonNode owd = JSON.readTree(Engines.http("POST", opensearch.url() + "/pscheduler_latency/_search",
                "{\"size\":0,\"aggs\":{\"src\":{\"terms\":{\"field\":\"test.spec.source.keyword\"},\"aggs\":{\"dst\":"
                        + "{\"terms\":{\"field\":\"test.spec.dest.keyword\"},\"aggs\":{\"loss\":{\"max\":{\"field\":"
                        + "\"result.packets.loss\"}}}}}}}}", "application/json").body());
        JsonNode owdSrc = owd.path("aggregations").path("src").path("buckets");
        assertEquals(1, owdSrc.size(), owd.toString());
        assertEquals("127.0.0.1", owdSrc.get(0).path("key").asText());
        assertEquals("127.0.0.2", owdSrc.get(0).path("dst").path("buckets").path(0).path("key").asText(), owd.toString());
        assertEquals(latencies, owdSrc.get(0).path("dst").path("buckets").path(0).path("doc_count").asInt());
        assertEquals(latencyLoss, owdSrc.get(0).path("dst").path("buckets").path(0).path("loss").path("value").asDouble(), 1e-6);
        String query = "{\"size\":0,\"aggs\":{\"src\":{\"terms\":{\"field\":\"test.spec.source.keyword\",\"missing\":\"-\"},"
                + "\"aggs\":{\"dst\":{\"terms\":{\"field\":\"test.spec.dest.keyword\"},\"aggs\":{"
                + "\"loss\":{\"max\":{\"field\":\"result.packets.loss\"}},\"rtt\":{\"min\":{\"field\":\"result.rtt.min\"}}}}}}}}";
        JsonNode rtt = JSON.readTree(Engines.http("POST", opensearch.url() + "/pscheduler_rtt/_search", query, "application/json").body());
        JsonNode src = rtt.path("aggregations").path("src").path("buckets");
        assertEquals(1, src.size(), rtt.toString());
        assertEquals(source == null ? "-" : source, src.get(0).path("key").asText());
        JsonNode dst = src.get(0).path("dst").path("buckets");
        assertEquals(1, dst.size(), rtt.toString());
        assertEquals(dest, dst.get(0).path("key").asText());
        assertEquals(maxLoss, dst.get(0).path("loss").path("value").asDouble(), 1e-12);
        assertEquals(minRtt, dst.get(0).path("rtt").path("value").asDouble(), 1e-9);
        JsonNode tput = JSON.readTree(Engines.http("POST", opensearch.url() + "/pscheduler_throughput/_search",
                "{\"size\":0,\"aggs\":{\"tput\":{\"avg\":{\"field\":\"result.throughput\"}}}}", "application/json").body());
        // perfSONAR's template maps numbers dynamically, so result.throughput is a float (24-bit mantissa): within 1e-6
        assertEquals(sumTput / tputs, tput.path("aggregations").path("tput").path("value").asDouble(), sumTput / tputs * 1e-6);
        System.out.printf("archivers: Grafana's queries on OpenSearch: %s -> %s max loss %.3f, min rtt %.6f s; avg throughput"
                + " %.0f bit/s over %d results, as the archive holds them%n", source, dest, maxLoss, minRtt, sumTput / tputs, tputs);
    }

    /**
     * Issue 24, item 2: a point that holds none of these schedules, pointed at the cluster, shows
     * every pair's cell from it: each test type's latest result, its figures as perfSONAR's fields
     * hold them (which the archive's own results give), fresh.
     */
    private void gridFromOpenSearch(Path data, Map<String, Observation> expected) throws Exception {
        Map<String, Observation> latest = new HashMap<>();
        for (Observation o : expected.values()) {
            latest.merge(LogstashDocuments.dataStream(o), o, (x, y) -> x.start().isAfter(y.start()) ? x : y);
        }
        // the archive's cluster, which the grid reads too unless told another
        try (Service reader = Service.start(data.resolve("reader"), "--nmws.measurement-point=point-reader",
                "--nmws.archive.opensearch-url=" + opensearch.url())) {
            JsonNode grid = get(reader, "/api/grid");
            JsonNode cluster = null;
            for (JsonNode p : grid.path("points")) {
                if (p.path("source").asText().equals("opensearch") && p.path("name").asText().equals("opensearch")) {
                    cluster = p;
                }
            }
            assertTrue(cluster != null && cluster.path("reachable").asBoolean(), "the cluster answered: " + grid.path("points"));
            Map<String, JsonNode> byType = new HashMap<>();
            for (JsonNode c : grid.path("cells")) {
                for (JsonNode d : c.path("definitions")) {
                    assertEquals("opensearch", d.path("via").asText(), d.toString());
                    assertEquals("ok", d.path("state").asText(), d.toString());
                    byType.put(d.path("result").path("test").asText(), d);
                }
            }
            assertEquals(java.util.Set.of("rtt", "latency", "throughput"), byType.keySet(), grid.toString());
            for (Map.Entry<String, JsonNode> e : byType.entrySet()) {
                Observation o = latest.get("pscheduler_" + e.getKey());
                ObjectNode doc = LogstashDocuments.document(o);
                JsonNode d = e.getValue();
                assertEquals(doc.path("test").path("spec").path("dest").asText(), d.path("dst").asText(), d.toString());
                assertEquals(o.start(), Instant.parse(d.path("result").path("start").asText()), "the latest result: " + d);
                JsonNode f = d.path("result").path("figures");
                JsonNode r = doc.path("result");
                switch (e.getKey()) {
                    case "rtt" -> {
                        assertEquals(1000 * r.path("rtt").path("mean").asDouble(), f.path("rttMs").asDouble(), 1e-9, d.toString());
                        assertEquals(o.summary().get("lossPercent"), f.path("lossPercent").asDouble(), 1e-9, d.toString());
                    }
                    case "latency" -> {
                        assertEquals(r.path("latency").path("median").asDouble(), f.path("owdMs").asDouble(), 1e-9, d.toString());
                        assertEquals(100 * r.path("packets").path("loss").asDouble(), f.path("lossPercent").asDouble(), 1e-9);
                    }
                    default -> assertEquals(r.path("throughput").asDouble() / 1e6, f.path("throughputMbps").asDouble(), 1e-6,
                            d.toString());
                }
            }
            System.out.printf("archivers: the grid of a point with none of these schedules, from OpenSearch in %d ms: %d cells,"
                    + " %s%n", cluster.path("answeredInMs").asLong(), grid.path("cells").size(), byType.keySet());
            resultsFromOpenSearch(reader, expected, latest);
        }
    }

    /**
     * Issue 24 item 4: the same point's stored-results queries about paths it holds none of are
     * answered from the cluster: every result of the path, the newest with its figures as the
     * measuring point stored them (perfSONAR's fields and units back in nmws's), and the
     * measuring point named; through the JSON API and NMWG's SetupDataRequest.
     */
    private void resultsFromOpenSearch(Service reader, Map<String, Observation> expected, Map<String, Observation> latest)
            throws Exception {
        Map<String, String> characteristic = Map.of("rtt", "path.delay.roundTrip", "latency", "path.delay.oneWay",
                "throughput", "path.bandwidth.achievable.TCP");
        for (Map.Entry<String, String> e : characteristic.entrySet()) {
            Observation o = latest.get("pscheduler_" + e.getKey());
            String dst = o.subject().dst().host();
            long stored = expected.values().stream().filter(x -> x.test() == o.test() && x.subject().dst().host().equals(dst))
                    .count();
            JsonNode found = get(reader, "/api/results?characteristic=" + e.getValue() + "&dst=" + dst + "&limit=1000");
            assertEquals(stored, found.path("count").asLong(), e.getKey() + ": every result of the path: " + found);
            JsonNode newest = found.path("results").get(found.path("results").size() - 1);
            assertEquals(o.start().toString(), newest.path("start").asText(), newest.toString());
            assertEquals(o.measurementPoint(), newest.path("measurementPoint").asText(), newest.toString());
            // the figures as the document holds them (perfSONAR's round trips are ISO durations to the
            // microsecond), back in nmws's names and units, and the counts as the point stored them
            JsonNode f = newest.path("summary");
            JsonNode r = LogstashDocuments.document(o).path("result");
            switch (e.getKey()) {
                case "rtt" -> {
                    assertEquals(1000 * r.path("rtt").path("min").asDouble(), f.path("minRtt").asDouble(), 1e-9, newest.toString());
                    assertEquals(1000 * r.path("rtt").path("mean").asDouble(), f.path("meanRtt").asDouble(), 1e-9, newest.toString());
                    assertEquals(o.summary().get("meanRtt"), f.path("meanRtt").asDouble(), 0.001, "within a microsecond");
                    assertEquals(o.summary().get("sent"), f.path("sent").asDouble(), 0, newest.toString());
                    assertEquals(o.summary().get("lossPercent"), f.path("lossPercent").asDouble(), 1e-9, newest.toString());
                }
                case "latency" -> {
                    assertEquals(r.path("latency").path("median").asDouble(), f.path("medianDelayMs").asDouble(), 1e-9,
                            newest.toString());
                    assertEquals(o.summary().get("sent"), f.path("sent").asDouble(), 0, newest.toString());
                    assertEquals(o.summary().get("lossPercent"), f.path("lossPercent").asDouble(), 1e-9, newest.toString());
                }
                default -> {
                    assertEquals(r.path("throughput").asDouble() / 1e6, f.path("throughputMbps").asDouble(), 1e-9,
                            newest.toString());
                    assertEquals(o.summary().get("throughputMbps"), f.path("throughputMbps").asDouble(),
                            o.summary().get("throughputMbps") * 1e-6, newest.toString());
                }
            }
        }
        // NMWG over SOAP: a SetupDataRequest for the round trips' path, answered with the cluster's results
        Observation rtt = latest.get("pscheduler_rtt");
        String answer = reader.soap11("<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
                + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" type=\"SetupDataRequest\" id=\"sd\"><nmwg:metadata id=\"m1\">"
                + "<nmwg:subject id=\"s1\"><nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"" + rtt.subject().dst().host()
                + "\"/></nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType></nmwg:metadata>"
                + "<nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>").body();
        org.w3c.dom.Element m = Service.validatedMessage(answer);
        assertEquals("SetupDataResponse", m.getAttribute("type"), answer);
        long figures = answer.split("name=\"meanRtt\"", -1).length - 1;
        long stored = expected.values().stream().filter(x -> x.test() == rtt.test()
                && x.subject().dst().host().equals(rtt.subject().dst().host())).count();
        assertEquals(stored, figures, "a meanRtt figure per result: " + answer.substring(0, Math.min(answer.length(), 3000)));
    }

    private Map<String, Integer> openSearchIds() throws Exception {
        Engines.http("POST", opensearch.url() + "/pscheduler_*/_refresh", null, null);
        JsonNode r = JSON.readTree(Engines.http("POST", opensearch.url() + "/pscheduler_*/_search",
                "{\"size\":10000,\"_source\":[\"id\"],\"query\":{\"match_all\":{}}}", "application/json").body());
        Map<String, Integer> ids = new HashMap<>();
        for (JsonNode hit : r.path("hits").path("hits")) {
            assertEquals(hit.path("_id").asText(), hit.path("_source").path("id").asText(), "_id is the result's id");
            ids.merge(hit.path("_source").path("id").asText(), 1, Integer::sum);
        }
        return ids;
    }

    private Map<String, Integer> rabbitIds() throws Exception {
        Map<String, Integer> ids = new HashMap<>();
        try (Connection c = rabbitConnection(); Channel ch = c.createChannel()) {
            GetResponse m;
            while ((m = ch.basicGet(QUEUE, true)) != null) {
                JsonNode body = JSON.readTree(new String(m.getBody(), StandardCharsets.UTF_8));
                assertEquals(m.getProps().getMessageId(), body.path("id").asText(), "message-id is the result's id");
                ids.merge(body.path("id").asText(), 1, Integer::sum);
            }
        }
        return ids;
    }

    private Map<String, Integer> kafkaIds(int atLeast) throws Exception {
        Map<String, Integer> ids = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(KafkaEngine.consumerProps(kafka.server(), "nmws-test"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int seen = 0;
            long quietSince = System.nanoTime();
            // read until every expected record came and nothing more arrives for 2 s (a duplicate would)
            while (System.nanoTime() < deadline && (seen < atLeast || System.nanoTime() - quietSince < 2_000_000_000L)) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    JsonNode body = JSON.readTree(r.value());
                    assertEquals(r.key(), body.path("id").asText(), "the record's key is the result's id");
                    ids.merge(r.key(), 1, Integer::sum);
                    seen++;
                    quietSince = System.nanoTime();
                }
            }
        }
        return ids;
    }

    private static void assertExactlyOnce(String where, Map<String, Observation> expected, Map<String, Integer> found) {
        List<String> missing = new ArrayList<>(expected.keySet());
        missing.removeAll(found.keySet());
        List<String> twice = found.entrySet().stream().filter(e -> e.getValue() != 1).map(e -> e.getKey() + " x" + e.getValue())
                .toList();
        List<String> unknown = new ArrayList<>(found.keySet());
        unknown.removeAll(expected.keySet());
        assertEquals(List.of(), missing, where + ": results missing");
        assertEquals(List.of(), twice, where + ": results more than once");
        assertEquals(List.of(), unknown, where + ": results nmws did not keep");
    }

    private Connection rabbitConnection() throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(rabbit.url());
        return f.newConnection("nmws-test");
    }

    private static long backlogs(Service s) throws Exception {
        long n = 0;
        for (JsonNode a : get(s, "/api/archivers").path("archives")) {
            n += a.path("backlog").asLong();
        }
        return n;
    }

    private static long backlog(Service s, String archive) throws Exception {
        return archiveState(s, archive).path("backlog").asLong();
    }

    private static long delivered(Service s, String archive) throws Exception {
        return archiveState(s, archive).path("delivered").asLong();
    }

    private static JsonNode archiveState(Service s, String archive) throws Exception {
        return stateOf(get(s, "/api/archivers"), archive);
    }

    private static JsonNode stateOf(JsonNode all, String archive) {
        for (JsonNode a : all.path("archives")) {
            if (a.path("name").asText().equals(archive)) {
                return a;
            }
        }
        return JSON.createObjectNode();
    }

    private static long backlogAt(String base, String archive) {
        return stateAt(base, archive).path("backlog").asLong();
    }

    private static long deliveredAt(String base, String archive) {
        return stateAt(base, archive).path("delivered").asLong();
    }

    private static JsonNode stateAt(String base, String archive) {
        try {
            return stateOf(JSON.readTree(Engines.http("GET", base + "/api/archivers", null, null).body()), archive);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode get(Service s, String path) throws Exception {
        HttpResponse<String> r = s.get(path);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    private static void put(Service s, String name, String body) throws Exception {
        HttpResponse<String> r = Engines.HTTP.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    private static void delete(Service s, String name) throws Exception {
        assertEquals(204, s.delete("/api/schedules/" + name).statusCode());
    }

    private static void waitFor(String what, Duration bound, ThrowingCondition c) throws InterruptedException {
        ArchiveDownFaultTest.waitFor(what, bound, () -> {
            try {
                return c.holds();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    interface ThrowingCondition {
        boolean holds() throws Exception;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
