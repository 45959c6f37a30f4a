package org.nmws.tests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A real nmprobe-owampd (OWAMP and TWAMP server) on ephemeral loopback control ports, stopped with SIGTERM. */
final class OwampServer implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("(owamp|twamp) listening on \\S+ port (\\d+)");

    final int owampPort;
    final int twampPort;
    final Process process;
    final Path log;

    private OwampServer(int owampPort, int twampPort, Process process, Path log) {
        this.owampPort = owampPort;
        this.twampPort = twampPort;
        this.process = process;
        this.log = log;
    }

    static OwampServer start(String... options) throws IOException, InterruptedException {
        Path bin = Path.of(System.getProperty("nmws.owampd.bin", "../native-probe/target/native/bin/nmprobe-owampd"));
        if (!Files.isExecutable(bin)) {
            throw new IllegalStateException("nmprobe-owampd missing: " + bin.toAbsolutePath() + " (build native-probe first)");
        }
        Path log = Files.createTempFile("nmprobe-owampd", ".log");
        List<String> cmd = new ArrayList<>(List.of(bin.toString(), "-b", "127.0.0.1", "--owamp-port", "0",
                "--twamp-port", "0", "-v"));
        cmd.addAll(List.of(options));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            int owamp = -1;
            int twamp = -1;
            for (String line : Files.readAllLines(log)) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    if (m.group(1).equals("owamp")) {
                        owamp = Integer.parseInt(m.group(2));
                    } else {
                        twamp = Integer.parseInt(m.group(2));
                    }
                }
            }
            if (owamp > 0 && twamp > 0) {
                return new OwampServer(owamp, twamp, p, log);
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("nmprobe-owampd exited: " + Files.readString(log));
            }
            Thread.sleep(50);
        }
        p.destroyForcibly();
        throw new IllegalStateException("nmprobe-owampd did not listen within 10 s: " + Files.readString(log));
    }

    String logText() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
