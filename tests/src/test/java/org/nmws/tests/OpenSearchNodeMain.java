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
 * A real OpenSearch node (from Maven Central's jars) in a JVM of its own, as
 * {@link OpenSearchEngine} starts it: its log4j must not meet the test JVM's Spring Boot logging.
 * Arguments: home directory, HTTP port, transport port; for a node of a cluster also its name,
 * its roles (comma-separated) and every node's transport port (comma-separated), the first
 * node being the one cluster manager. Runs until SIGTERM, which closes the node.
 */
public final class OpenSearchNodeMain {
    private OpenSearchNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args[0]);
        String name = args.length > 3 ? args[3] : "nmws-test-node";
        Settings.Builder b = Settings.builder()
                .put("cluster.name", "nmws-test")
                .put("node.name", name)
                .put("path.home", home.toString())
                .put("path.data", home.resolve("data").toString())
                .put("path.logs", home.resolve("logs").toString())
                .put("network.host", System.getProperty("nmws.bind", "127.0.0.1"))
                .put("http.port", Integer.parseInt(args[1]))
                .put("transport.port", Integer.parseInt(args[2]))
                .put("cluster.routing.allocation.disk.threshold_enabled", false);
        if (args.length > 5) {
            // one cluster manager (the first node) and data nodes: losing a data node leaves the cluster a manager
            List<String> seeds = new java.util.ArrayList<>();
            for (String port : args[5].split(",")) {
                seeds.add("127.0.0.1:" + port);
            }
            b.putList("node.roles", List.of(args[4].split(",")))
                    .putList("discovery.seed_hosts", seeds)
                    .putList("cluster.initial_cluster_manager_nodes", List.of("nmws-node-0"));
        } else {
            b.put("discovery.type", "single-node");
        }
        Settings settings = b.build();
        Environment env = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> name);
        Node node = new TestNode(env);
        node.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("closing the node: " + e);
            }
        }));
        System.out.println("nmws-test opensearch started on " + System.getProperty("nmws.bind", "127.0.0.1") + ":" + args[1]);
        Thread.currentThread().join();
    }

    /** Node's constructor that takes plugins from the classpath is protected: the HTTP transport is a plugin. */
    private static final class TestNode extends Node {
        TestNode(Environment env) {
            super(env, List.of(Netty4Plugin.class), true);
        }
    }
}
