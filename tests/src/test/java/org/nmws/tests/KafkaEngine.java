package org.nmws.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka 4 broker (KRaft, broker and controller in one) for a test class: its log
 * directory formatted with Kafka's StorageTool, then kafka.Kafka in a JVM of its own on loopback
 * with ports chosen free, stopped at close.
 */
final class KafkaEngine implements AutoCloseable {
    final int port;
    final int controllerPort;
    final Path dir;
    final Path log;
    private Process process;

    private KafkaEngine(int port, int controllerPort, Path dir) {
        this.port = port;
        this.controllerPort = controllerPort;
        this.dir = dir;
        this.log = dir.resolve("broker.log");
    }

    static KafkaEngine start() throws Exception {
        int[] ports = Engines.freePorts(2);
        KafkaEngine k = new KafkaEngine(ports[0], ports[1], Files.createTempDirectory("nmws-kafka"));
        Path config = k.dir.resolve("server.properties");
        Files.writeString(config, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + k.controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + k.port + ",CONTROLLER://127.0.0.1:" + k.controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + k.port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + k.dir.resolve("data"),
                "num.partitions=1",
                "auto.create.topics.enable=true",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "") + "\n");
        try {
            k.start(config);
        } catch (Exception | Error e) {
            k.close(); // a broker that did not come up does not outlive the test
            throw e;
        }
        return k;
    }

    private void start(Path config) throws Exception {
        KafkaEngine k = this;
        List<String> jvm = List.of("-Xms256m", "-Xmx384m", "-XX:TieredStopAtLevel=1");
        Process format = Engines.javaProcess("kafka.tools.StorageTool", jvm,
                List.of("format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()), k.log);
        if (format.waitFor() != 0) {
            throw new IllegalStateException("kafka storage format failed:\n" + Engines.tail(k.log));
        }
        k.process = Engines.javaProcess("kafka.Kafka", jvm, List.of(config.toString()), k.log);
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, k.server());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
        try (Admin admin = Admin.create(p)) {
            Engines.await("Kafka on " + k.server(), Duration.ofSeconds(90), k.process, k.log, () -> {
                try {
                    return admin.describeCluster().nodes().get().size() == 1;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    String server() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        Engines.stop(process, Duration.ofSeconds(30));
        Engines.deleteTree(dir);
    }

    static Map<String, Object> consumerProps(String server, String group) {
        return Map.of("bootstrap.servers", server, "group.id", group, "auto.offset.reset", "earliest",
                "enable.auto.commit", "false", "isolation.level", "read_committed");
    }
}
