package org.nmws.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real OpenSearch 2.19 node for a test class: its own JVM ({@link OpenSearchNodeMain}) on
 * loopback, ports chosen free, data in a temporary directory, stopped (SIGTERM) and started
 * again on the same ports and data for archive-down tests, removed at close.
 */
public final class OpenSearchEngine implements AutoCloseable {
    final int httpPort;
    /** The address it binds (loopback unless a lab's services must reach it). */
    final String host;
    final int transportPort;
    final Path home;
    final Path log;
    /** For a node of a cluster: its name, roles and every node's transport port; empty for one node alone. */
    private final List<String> clusterArgs;
    private Process process;

    private OpenSearchEngine(String host, int httpPort, int transportPort, Path home, List<String> clusterArgs) {
        this.host = host;
        this.httpPort = httpPort;
        this.transportPort = transportPort;
        this.home = home;
        this.log = home.resolve("node.log");
        this.clusterArgs = clusterArgs;
    }

    static OpenSearchEngine start() throws Exception {
        return start("127.0.0.1");
    }

    /** A one-node cluster bound to host (an address of this machine). */
    public static OpenSearchEngine start(String host) throws Exception {
        Path home = Files.createTempDirectory("nmws-opensearch");
        int[] ports = Engines.freePorts(2);
        OpenSearchEngine e = new OpenSearchEngine(host, ports[0], ports[1], home, List.of());
        try {
            e.startAgain();
        } catch (Exception | Error failed) {
            e.close(); // a node that did not answer in time does not outlive the test
            throw failed;
        }
        return e;
    }

    /**
     * A cluster of n nodes, started at once: node 0 the cluster manager (and a data node), the
     * others data nodes only, so one of those stopped leaves a cluster that still writes and answers.
     * Returns when every node answers and the cluster counts n nodes.
     */
    static List<OpenSearchEngine> cluster(int n) throws Exception {
        int[] ports = Engines.freePorts(2 * n);
        StringBuilder transports = new StringBuilder();
        for (int k = 0; k < n; k++) {
            transports.append(k == 0 ? "" : ",").append(ports[2 * k + 1]);
        }
        List<OpenSearchEngine> nodes = new java.util.ArrayList<>();
        try {
            for (int k = 0; k < n; k++) {
                String roles = k == 0 ? "cluster_manager,data,ingest" : "data,ingest";
                OpenSearchEngine e = new OpenSearchEngine("127.0.0.1", ports[2 * k], ports[2 * k + 1], Files.createTempDirectory("nmws-opensearch"),
                        List.of("nmws-node-" + k, roles, transports.toString()));
                nodes.add(e);
                e.launch();
            }
            for (OpenSearchEngine e : nodes) {
                e.awaitAnswer();
            }
            OpenSearchEngine first = nodes.get(0);
            Engines.await("an OpenSearch cluster of " + n + " nodes", Duration.ofSeconds(120), first.process, first.log, () -> {
                try {
                    return Engines.http("GET", first.url() + "/_cluster/health?wait_for_nodes=" + n + "&timeout=1s", null, null)
                            .statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            });
            return nodes;
        } catch (Exception | Error failed) {
            for (OpenSearchEngine e : nodes) {
                e.close();
            }
            throw failed;
        }
    }

    /** SIGKILL: the node dies as a crashed host would, without closing anything. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    public String url() {
        return "http://" + host + ":" + httpPort;
    }

    /** Starts the node (again, on its data) and waits until it answers. */
    void startAgain() throws Exception {
        launch();
        awaitAnswer();
    }

    private void launch() throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of(home.toString(), Integer.toString(httpPort), Integer.toString(transportPort)));
        args.addAll(clusterArgs);
        // a small heap and the quick JIT suit the tests' few documents; a benchmark of millions
        // gives the node a heap and JIT of a real one (-Dnmws.opensearch.jvm="-Xms2g -Xmx2g")
        List<String> jvm = new java.util.ArrayList<>(List.of(System.getProperty("nmws.opensearch.jvm",
                "-Xms384m -Xmx384m -XX:TieredStopAtLevel=1").trim().split("\\s+")));
        jvm.addAll(List.of("-Dlog4j2.provider=org.apache.logging.log4j.core.impl.Log4jProvider", "-Dnmws.bind=" + host,
                "-Dopensearch.set.netty.runtime.available.processors=false"));
        process = Engines.javaProcess(OpenSearchNodeMain.class.getName(), jvm, args, log);
    }

    private void awaitAnswer() throws Exception {
        Engines.await("OpenSearch on " + url(), Duration.ofSeconds(120), process, log,
                () -> {
                    try {
                        return Engines.http("GET", url() + "/_cluster/health", null, null).statusCode() == 200;
                    } catch (Exception e) {
                        return false;
                    }
                });
    }

    /** SIGTERM: the node closes; its port refuses until {@link #startAgain()}. */
    void stop() throws InterruptedException {
        Engines.stop(process, Duration.ofSeconds(30));
    }

    @Override
    public void close() throws InterruptedException {
        stop();
        Engines.deleteTree(home);
    }
}
