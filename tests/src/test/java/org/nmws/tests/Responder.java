package org.nmws.tests;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real nmprobe-responder process on a free loopback port, stopped with SIGTERM. */
final class Responder implements AutoCloseable {
    final int port;
    final Process process;
    final Path log;

    private Responder(int port, Process process, Path log) {
        this.port = port;
        this.process = process;
        this.log = log;
    }

    static Responder start() throws IOException, InterruptedException {
        return start("127.0.0.1");
    }

    /** A responder bound to one address (an IPv4 or IPv6 literal). */
    static Responder start(String bindAddress) throws IOException, InterruptedException {
        return start(bindAddress, List.of());
    }

    /** A responder bound to one address, with further options (--stamp-port N, ...). */
    static Responder start(String bindAddress, List<String> options) throws IOException, InterruptedException {
        return start(bindAddress, freePort(), options);
    }

    /** A responder on a given port: one started again where a killed one listened. */
    static Responder start(String bindAddress, int port, List<String> options) throws IOException, InterruptedException {
        Path bin = Path.of(System.getProperty("nmws.responder.bin", "../native-probe/target/native/bin/nmprobe-responder"));
        if (!Files.isExecutable(bin)) {
            throw new IllegalStateException("responder binary missing: " + bin.toAbsolutePath() + " (build native-probe first)");
        }
        Path log = Files.createTempFile("nmprobe-responder", ".log");
        List<String> cmd = new java.util.ArrayList<>(List.of(bin.toString(), "-p", Integer.toString(port), "-b", bindAddress));
        cmd.addAll(options);
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(bindAddress, port), 200);
                return new Responder(port, p, log);
            } catch (IOException notYet) {
                if (!p.isAlive()) {
                    throw new IllegalStateException("responder exited: " + Files.readString(log));
                }
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new IllegalStateException("responder did not listen on " + port + " within 10 s: " + Files.readString(log));
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Test sessions opened so far, counted from the responder's log (a line per session opened). */
    long sessions() throws IOException {
        try (var lines = Files.lines(log)) {
            return lines.filter(l -> l.contains(" opened: peer ")).count();
        }
    }

    /**
     * SIGSTOP, then SIGCONT after a while: a receiver that falls behind, as a busy host does.
     * Datagrams that arrive meanwhile queue in its socket buffer until that is full; the rest
     * are dropped by the kernel, so a stream fast enough for long enough really loses frames.
     */
    void pause(java.time.Duration howLong) throws IOException, InterruptedException {
        signal("-STOP");
        try {
            Thread.sleep(howLong.toMillis());
        } finally {
            signal("-CONT");
        }
    }

    private void signal(String which) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill " + which + " " + process.pid() + " failed");
        }
    }

    /** SIGKILL, as a crash or a power cut would end it: no goodbye to its clients. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy(); // SIGTERM: the responder shuts down cleanly
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
