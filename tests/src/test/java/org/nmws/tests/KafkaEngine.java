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
public final class KafkaEngine implements AutoCloseable {
    final int port;
    /** The address of the plaintext listener (loopback unless a lab's services must reach it); the others are on loopback. */
    final String host;
    final int controllerPort;
    final Path dir;
    final Path log;
    private Process process;

    private KafkaEngine(String host, int port, int controllerPort, int sslPort, int mtlsPort, int otherNamePort, Path dir) {
        this.host = host;
        this.port = port;
        this.controllerPort = controllerPort;
        this.sslPort = sslPort;
        this.mtlsPort = mtlsPort;
        this.otherNamePort = otherNamePort;
        this.dir = dir;
        this.log = dir.resolve("broker.log");
    }

    /** The TLS listener's port: its certificate is {@link #caPem()}'s, for 127.0.0.1 and localhost. */
    final int sslPort;
    /** A TLS listener that also asks for a client certificate: {@link #clientPem()}'s, and no other. */
    final int mtlsPort;
    /** A TLS listener whose certificate ({@link #otherNamePem()}) names broker.invalid only, not the address it answers on. */
    final int otherNamePort;
    private static final String STORE_PASSWORD = "nmws-test";

    static KafkaEngine start() throws Exception {
        return start("127.0.0.1");
    }

    /** A broker whose plaintext listener is on host (an address of this machine). */
    public static KafkaEngine start(String host) throws Exception {
        int[] ports = Engines.freePorts(5);
        KafkaEngine k = new KafkaEngine(host, ports[0], ports[1], ports[2], ports[3], ports[4], Files.createTempDirectory("nmws-kafka"));
        Path store = selfSigned(k.dir, "broker");
        Path otherName = selfSigned(k.dir, "othername", "dns:broker.invalid");
        clientKeyPem(selfSigned(k.dir, "client"), "client", k.dir.resolve("client.key"));
        Path config = k.dir.resolve("server.properties");
        Files.writeString(config, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + k.controllerPort,
                "listeners=PLAINTEXT://" + host + ":" + k.port + ",SSL://127.0.0.1:" + k.sslPort + ",MTLS://127.0.0.1:" + k.mtlsPort
                        + ",OTHERNAME://127.0.0.1:" + k.otherNamePort + ",CONTROLLER://127.0.0.1:" + k.controllerPort,
                "advertised.listeners=PLAINTEXT://" + host + ":" + k.port + ",SSL://127.0.0.1:" + k.sslPort + ",MTLS://127.0.0.1:"
                        + k.mtlsPort + ",OTHERNAME://127.0.0.1:" + k.otherNamePort,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,OTHERNAME:SSL,CONTROLLER:PLAINTEXT",
                "listener.name.othername.ssl.keystore.type=PKCS12",
                "listener.name.othername.ssl.keystore.location=" + otherName,
                "listener.name.othername.ssl.keystore.password=" + STORE_PASSWORD,
                "listener.name.othername.ssl.key.password=" + STORE_PASSWORD,
                "listener.name.mtls.ssl.client.auth=required",
                "listener.name.mtls.ssl.truststore.type=PEM",
                "listener.name.mtls.ssl.truststore.location=" + k.dir.resolve("client.pem"),
                "ssl.keystore.type=PKCS12",
                "ssl.keystore.location=" + store,
                "ssl.keystore.password=" + STORE_PASSWORD,
                "ssl.key.password=" + STORE_PASSWORD,
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

    public String server() {
        return host + ":" + port;
    }

    String sslServer() {
        return "127.0.0.1:" + sslPort;
    }

    String otherNameServer() {
        return "127.0.0.1:" + otherNamePort;
    }

    /** The certificate of the OTHERNAME listener (its own CA), for broker.invalid. */
    Path otherNamePem() {
        return dir.resolve("othername.pem");
    }

    String mtlsServer() {
        return "127.0.0.1:" + mtlsPort;
    }

    /** The client certificate the MTLS listener accepts, and its key (PKCS#8 PEM, unencrypted). */
    Path clientPem() {
        return dir.resolve("client.pem");
    }

    Path clientKey() {
        return dir.resolve("client.key");
    }

    /** Writes the key of store's entry alias as PKCS#8 PEM (what a client's _ssl_keyfile holds). */
    static void clientKeyPem(Path store, String alias, Path out) throws Exception {
        java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
        try (java.io.InputStream in = Files.newInputStream(store)) {
            ks.load(in, STORE_PASSWORD.toCharArray());
        }
        byte[] pkcs8 = ks.getKey(alias, STORE_PASSWORD.toCharArray()).getEncoded();
        Files.writeString(out, "-----BEGIN PRIVATE KEY-----\n"
                + java.util.Base64.getMimeEncoder(64, "\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).encodeToString(pkcs8)
                + "\n-----END PRIVATE KEY-----\n");
    }

    /** The PEM certificate the TLS listener presents (self-signed: it is its own CA). */
    Path caPem() {
        return dir.resolve("broker.pem");
    }

    /**
     * A self-signed certificate for 127.0.0.1 and localhost, made with the JDK's keytool:
     * NAME.p12 (its key, PKCS12) and NAME.pem (the certificate) in dir; returns the store.
     */
    static Path selfSigned(Path dir, String name) throws Exception {
        return selfSigned(dir, name, "ip:127.0.0.1,dns:localhost");
    }

    /** As {@link #selfSigned(Path, String)}, for the names san gives (keytool's SAN form). */
    static Path selfSigned(Path dir, String name, String san) throws Exception {
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Path store = dir.resolve(name + ".p12");
        run(List.of(keytool, "-genkeypair", "-alias", name, "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-ext", "SAN=" + san, "-validity", "2", "-keystore", store.toString(), "-storetype",
                "PKCS12", "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD));
        run(List.of(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", store.toString(), "-storepass", STORE_PASSWORD,
                "-file", dir.resolve(name + ".pem").toString()));
        return store;
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
    }

    @Override
    public void close() throws InterruptedException {
        Engines.stop(process, Duration.ofSeconds(30));
        Engines.deleteTree(dir);
    }

    public static Map<String, Object> consumerProps(String server, String group) {
        return Map.of("bootstrap.servers", server, "group.id", group, "auto.offset.reset", "earliest",
                "enable.auto.commit", "false", "isolation.level", "read_committed");
    }
}
