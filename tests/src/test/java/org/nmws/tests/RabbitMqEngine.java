package org.nmws.tests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A real RabbitMQ (Debian's rabbitmq-server, Erlang) for a test class, started as the test's
 * user without systemd: its own node name, mnesia, logs, cookie (HOME) and config in a
 * temporary directory, an AMQP listener on loopback only, and a private epmd and distribution
 * port, all chosen free. Stopped (rabbitmqctl shutdown) and started again on the same data for
 * archive-down tests; at close its epmd is stopped too.
 */
public final class RabbitMqEngine implements AutoCloseable {
    private static final String BIN = "/usr/lib/rabbitmq/bin/";

    final int port;
    /** The address its AMQP listener binds (loopback unless a lab's services must reach it). */
    final String host;
    final Path dir;
    final Path log;
    private final String node;
    private final Map<String, String> env = new HashMap<>();
    private Process process;

    private RabbitMqEngine(String host, int port, int distPort, int epmdPort, Path dir) throws Exception {
        this.host = host;
        this.port = port;
        this.dir = dir;
        this.log = dir.resolve("server.log");
        this.node = "nmwstest" + port + "@localhost";
        // guest may log in from other hosts only where the broker listens beyond loopback (a lab's link)
        Files.writeString(dir.resolve("rabbitmq.conf"), "listeners.tcp.1 = " + host + ":" + port + "\n"
                + (host.startsWith("127.") ? "loopback_users.guest = true\n" : "loopback_users = none\n"));
        Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
        env.put("HOME", dir.toString());
        env.put("RABBITMQ_NODENAME", node);
        env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString());
        env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
        env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", dir.resolve("logs").toString());
        env.put("RABBITMQ_PID_FILE", dir.resolve("rabbitmq.pid").toString());
        env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
        env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
        env.put("ERL_EPMD_PORT", Integer.toString(epmdPort));
    }

    static RabbitMqEngine start() throws Exception {
        return start("127.0.0.1");
    }

    /** A broker listening on host (an address of this machine). */
    public static RabbitMqEngine start(String host) throws Exception {
        if (!Files.isExecutable(Path.of(BIN, "rabbitmq-server"))) {
            throw new IllegalStateException("RabbitMQ is not installed (" + BIN + "rabbitmq-server): apt-get install rabbitmq-server"
                    + " (scripts/test.sh installs it)");
        }
        int[] ports = Engines.freePorts(3);
        RabbitMqEngine r = new RabbitMqEngine(host, ports[0], ports[1], ports[2], Files.createTempDirectory("nmws-rabbitmq"));
        try {
            r.startAgain();
        } catch (Exception | Error e) {
            r.close(); // a broker that half started, and its epmd, do not outlive the test
            throw e;
        }
        return r;
    }

    public String url() {
        return "amqp://guest:guest@" + host + ":" + port + "/%2F";
    }

    /** Starts the broker (again, on its data) and waits until it is up. */
    void startAgain() throws Exception {
        process = Engines.process(List.of(BIN + "rabbitmq-server"), env, log);
        Process wait = Engines.process(List.of(BIN + "rabbitmqctl", "-n", node, "wait", "--timeout", "90",
                dir.resolve("rabbitmq.pid").toString()), env, log);
        Engines.await("RabbitMQ " + node, Duration.ofSeconds(100), process, log, () -> !wait.isAlive());
        if (wait.exitValue() != 0) {
            throw new IllegalStateException("rabbitmqctl wait failed:\n" + Engines.tail(log));
        }
    }

    /** rabbitmqctl shutdown: the broker stops and its port refuses until {@link #startAgain()}. */
    void stop() throws Exception {
        if (process == null) {
            return;
        }
        Process shutdown = Engines.process(List.of(BIN + "rabbitmqctl", "-n", node, "shutdown"), env, log);
        shutdown.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
        Engines.stop(process, Duration.ofSeconds(30));
    }

    @Override
    public void close() throws Exception {
        stop();
        // the epmd the node started outlives it; with no node left it may be told to stop
        Process kill = Engines.process(List.of("epmd", "-kill"), env, log);
        kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        Engines.deleteTree(dir);
    }
}
