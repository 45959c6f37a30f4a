package org.nmws.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ArchiveTarget;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.Outbox;
import org.nmws.service.archive.ResultKeeper;
import org.nmws.service.archiver.ArchiverProperties;
import org.nmws.service.archiver.Delivery;
import org.nmws.service.archiver.ResultBodies;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;

/**
 * Results per second through each archiver, and the outbox's drain rate with all four at once
 * (bench/archivers.sh). One real round-trip result (100 frames, through the real service and
 * responder) is kept N times with an archive each, the service's own delivery off, so the rows
 * wait; then a delivery drains them, timed, and the archive is asked how many it holds. The
 * engines are the tests' (a real OpenSearch node, RabbitMQ, Kafka broker) and a JDK HTTP server
 * standing in for Logstash. Prints a Markdown table.
 */
public final class ArchiverBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ArchiverBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        AtomicLong posted = new AtomicLong();
        HttpServer sink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        sink.createContext("/logstash", ex -> {
            ex.getRequestBody().readAllBytes();
            posted.incrementAndGet();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        java.util.concurrent.ExecutorService sinkThreads = java.util.concurrent.Executors.newFixedThreadPool(4);
        sink.setExecutor(sinkThreads);
        sink.start();
        Path data = Files.createTempDirectory("nmws-archiver-bench");
        try (OpenSearchEngine os = OpenSearchEngine.start(); RabbitMqEngine rmq = RabbitMqEngine.start();
             KafkaEngine kafka = KafkaEngine.start(); Responder responder = Responder.start();
             Service service = Service.start(data, "--nmws.responder-port=" + responder.port, "--nmws.measurement-point=bench",
                     "--nmws.archivers.enabled=false")) {
            try (Connection c = rabbit(rmq); Channel ch = c.createChannel()) {
                ch.queueDeclare("bench", true, false, false, null);
            }
            var reply = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 100, ""), "application/xml", null);
            if (reply.statusCode() != 200) {
                throw new IllegalStateException(reply.body());
            }
            Archive archive = service.context.getBean(Archive.class);
            ResultKeeper keeper = service.context.getBean(ResultKeeper.class);
            Outbox outbox = service.context.getBean(Outbox.class);
            ResultBodies bodies = service.context.getBean(ResultBodies.class);
            Observation real = archive.find(new ObservationQuery(Characteristic.ProbeTest.ROUND_TRIP, "127.0.0.1", null, Instant.EPOCH,
                    Instant.now(), true, 1)).get(0);
            System.out.printf("%n| archiver | results | queue (results/s) | drain (results/s) | bytes a result | in the archive |%n");
            System.out.printf("|---|---|---|---|---|---|%n");
            Map<String, String> specs = Map.of(
                    "http", "{\"archiver\":\"http\",\"data\":{\"_url\":\"http://127.0.0.1:" + sink.getAddress().getPort() + "/logstash\"}}",
                    "opensearch", "{\"archiver\":\"opensearch\",\"data\":{\"_url\":\"" + os.url() + "\"}}",
                    "rabbitmq", "{\"archiver\":\"rabbitmq\",\"data\":{\"_url\":\"" + rmq.url() + "\",\"routing-key\":\"bench\"}}",
                    "kafka", "{\"archiver\":\"kafka\",\"data\":{\"server\":\"" + kafka.server() + "\",\"topic\":\"bench\"}}");
            int bytes = bodies.archiveBody(real).toString().length();
            int docBytes = bodies.openSearchDocument(real).toString().length();
            for (String archiver : List.of("http", "opensearch", "rabbitmq", "kafka")) {
                ArchiveTarget target = ArchiveTarget.parse(JSON.readTree(specs.get(archiver)), "bench-" + archiver);
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    keeper.keep(real.withId(0), UUID.randomUUID(), List.of(target));
                }
                double queued = n / ((System.nanoTime() - t0) / 1e9);
                Delivery d = new Delivery(outbox, archive, bodies, props(), new SimpleMeterRegistry(), JSON, Clock.systemUTC());
                long t1 = System.nanoTime();
                while (!outbox.due(archiver, 1).isEmpty()) {
                    d.pass(archiver);
                }
                double drained = n / ((System.nanoTime() - t1) / 1e9);
                d.stop();
                long held = switch (archiver) {
                    case "http" -> posted.get();
                    case "opensearch" -> openSearchCount(os);
                    case "rabbitmq" -> rabbitCount(rmq);
                    default -> kafkaCount(kafka);
                };
                System.out.printf("| %s | %d | %.0f | %.0f | %d | %d |%n", archiver, n, queued, drained,
                        archiver.equals("opensearch") ? docBytes : bytes, held);
            }
            // All four at once, by the delivery's own threads: the outbox's drain rate.
            List<ArchiveTarget> all = List.of(
                    ArchiveTarget.parse(JSON.readTree(specs.get("http")), "all-http"),
                    ArchiveTarget.parse(JSON.readTree(specs.get("opensearch")), "all-opensearch"),
                    ArchiveTarget.parse(JSON.readTree(specs.get("rabbitmq")), "all-rabbitmq"),
                    ArchiveTarget.parse(JSON.readTree(specs.get("kafka")), "all-kafka"));
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                keeper.keep(real.withId(0), UUID.randomUUID(), all);
            }
            double queued = n / ((System.nanoTime() - t0) / 1e9);
            Delivery d = new Delivery(outbox, archive, bodies, props(), new SimpleMeterRegistry(), JSON, Clock.systemUTC());
            long t1 = System.nanoTime();
            d.start();
            while (outbox.refreshBacklog().values().stream().mapToLong(Long::longValue).sum() > 0) {
                Thread.sleep(50);
            }
            double seconds = (System.nanoTime() - t1) / 1e9;
            d.stop();
            System.out.printf("| all four at once | %d (x4 rows) | %.0f | %.0f rows/s (%.0f results/s to all four) | | |%n", n,
                    queued, 4 * n / seconds, n / seconds);
        } finally {
            sink.stop(0);
            sinkThreads.shutdown();
            Engines.deleteTree(data);
        }
    }

    private static ArchiverProperties props() {
        return new ArchiverProperties(true, Duration.ofHours(1), 1_000_000, 500, Duration.ofSeconds(1), Duration.ofSeconds(5),
                Duration.ofMillis(100));
    }

    private static Connection rabbit(RabbitMqEngine rmq) throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(rmq.url());
        return f.newConnection("bench");
    }

    private static long openSearchCount(OpenSearchEngine os) throws Exception {
        Engines.http("POST", os.url() + "/pscheduler_rtt/_refresh", null, null);
        JsonNode c = JSON.readTree(Engines.http("GET", os.url() + "/pscheduler_rtt/_count", null, null).body());
        return c.path("count").asLong();
    }

    private static long rabbitCount(RabbitMqEngine rmq) throws Exception {
        try (Connection c = rabbit(rmq); Channel ch = c.createChannel()) {
            return ch.queueDeclarePassive("bench").getMessageCount();
        }
    }

    private static long kafkaCount(KafkaEngine kafka) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.server());
        try (Admin admin = Admin.create(p)) {
            return admin.listOffsets(Map.of(new TopicPartition("bench", 0), OffsetSpec.latest())).all().get()
                    .values().iterator().next().offset();
        }
    }
}
