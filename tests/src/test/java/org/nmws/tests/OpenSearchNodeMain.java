package org.nmws.tests;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

/**
 * A real one-node OpenSearch (from Maven Central's jars) in a JVM of its own, as
 * {@link OpenSearchEngine} starts it: its log4j must not meet the test JVM's Spring Boot logging.
 * Arguments: home directory, HTTP port, transport port. Runs until SIGTERM, which closes the node.
 */
public final class OpenSearchNodeMain {
    private OpenSearchNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]);
        Settings settings = Settings.builder()
                .put("cluster.name", "nmws-test")
                .put("node.name", "nmws-test-node")
                .put("path.home", home.toString())
                .put("path.data", home.resolve("data").toString())
                .put("path.logs", home.resolve("logs").toString())
                .put("network.host", "127.0.0.1")
                .put("http.port", Integer.parseInt(args[1]))
                .put("transport.port", Integer.parseInt(args[2]))
                .put("discovery.type", "single-node")
                .put("cluster.routing.allocation.disk.threshold_enabled", false)
                .build();
        Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "nmws-test-node");
        Node node = new TestNode(env);
        node.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("closing the node: " + e);
            }
        }));
        System.out.println("nmws-test opensearch started on 127.0.0.1:" + args[1]);
        Thread.currentThread().join();
    }

    /** Node's constructor that takes plugins from the classpath is protected: the HTTP transport is a plugin. */
    private static final class TestNode extends Node {
        TestNode(Environment env) {
            super(env, List.of(Netty4Plugin.class), true);
        }
    }
}
