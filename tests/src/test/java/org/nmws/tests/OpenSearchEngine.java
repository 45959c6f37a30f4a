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
final class OpenSearchEngine implements AutoCloseable {
    final int httpPort;
    final int transportPort;
    final Path home;
    final Path log;
    private Process process;

    private OpenSearchEngine(int httpPort, int transportPort, Path home) {
        this.httpPort = httpPort;
        this.transportPort = transportPort;
        this.home = home;
        this.log = home.resolve("node.log");
    }

    static OpenSearchEngine start() throws Exception {
        Path home = Files.createTempDirectory("nmws-opensearch");
        int[] ports = Engines.freePorts(2);
        OpenSearchEngine e = new OpenSearchEngine(ports[0], ports[1], home);
        try {
            e.startAgain();
        } catch (Exception | Error failed) {
            e.close(); // a node that did not answer in time does not outlive the test
            throw failed;
        }
        return e;
    }

    String url() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** Starts the node (again, on its data) and waits until it answers. */
    void startAgain() throws Exception {
        process = Engines.javaProcess(OpenSearchNodeMain.class.getName(),
                List.of("-Xms384m", "-Xmx384m", "-XX:TieredStopAtLevel=1",
                        "-Dlog4j2.provider=org.apache.logging.log4j.core.impl.Log4jProvider",
                        "-Dopensearch.set.netty.runtime.available.processors=false"),
                List.of(home.toString(), Integer.toString(httpPort), Integer.toString(transportPort)), log);
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
