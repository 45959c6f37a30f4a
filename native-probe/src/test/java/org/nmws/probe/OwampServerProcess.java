package org.nmws.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the real {@code nmprobe-owampd} on ephemeral OWAMP and TWAMP control ports of 127.0.0.1
 * for tests. The binary comes from system property {@code nmws.owampd.bin}.
 */
final class OwampServerProcess implements AutoCloseable {

  private static final Pattern LISTENING = Pattern.compile("(owamp|twamp) listening on \\S+ port (\\d+)");

  private final Process process;
  private final StringBuffer log = new StringBuffer();
  private final CompletableFuture<Integer> owampPort = new CompletableFuture<>();
  private final CompletableFuture<Integer> twampPort = new CompletableFuture<>();

  OwampServerProcess(String... extraArgs) throws IOException {
    Path bin = Path.of(System.getProperty("nmws.owampd.bin", "target/native/bin/nmprobe-owampd"));
    if (!Files.isExecutable(bin)) {
      throw new IllegalStateException("nmprobe-owampd not found or not executable: " + bin);
    }
    List<String> cmd = new ArrayList<>(List.of(bin.toString(), "-b", "127.0.0.1", "--owamp-port", "0",
        "--twamp-port", "0", "-v"));
    cmd.addAll(List.of(extraArgs));
    process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          log.append(line).append('\n');
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            (m.group(1).equals("owamp") ? owampPort : twampPort).complete(Integer.parseInt(m.group(2)));
          }
        }
      } catch (IOException e) {
        // the process ended: the futures below fail with its log
      }
      IOException ended = new IOException("nmprobe-owampd exited: " + log);
      owampPort.completeExceptionally(ended);
      twampPort.completeExceptionally(ended);
    }, "nmprobe-owampd-log");
    reader.setDaemon(true);
    reader.start();
  }

  int owampPort() throws Exception {
    return owampPort.get(10, TimeUnit.SECONDS);
  }

  int twampPort() throws Exception {
    return twampPort.get(10, TimeUnit.SECONDS);
  }

  String log() {
    return log.toString();
  }

  /** Sends SIGTERM and returns the exit code. */
  int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return -1;
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      stop();
    }
  }
}
