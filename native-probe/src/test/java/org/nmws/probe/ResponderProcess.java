package org.nmws.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the real {@code nmprobe-responder} executable on an ephemeral port of 127.0.0.1 for
 * tests. The binary comes from system property {@code nmws.responder.bin}.
 */
final class ResponderProcess implements AutoCloseable {

  private static final Pattern LISTENING = Pattern.compile("listening on \\S+ port (\\d+)");
  private static final Pattern STAMP = Pattern.compile("TWAMP-Light reflector on UDP port (\\d+)");

  private final Process process;
  private final StringBuffer log = new StringBuffer();
  private final int port;
  private final CompletableFuture<Integer> stampPort = new CompletableFuture<>();

  ResponderProcess(String... extraArgs) throws IOException, InterruptedException {
    Path bin =
        Path.of(System.getProperty("nmws.responder.bin", "target/native/bin/nmprobe-responder"));
    if (!Files.isExecutable(bin)) {
      throw new IllegalStateException("responder binary not found or not executable: " + bin);
    }
    String[] cmd = new String[5 + extraArgs.length];
    cmd[0] = bin.toString();
    cmd[1] = "-b";
    cmd[2] = "127.0.0.1";
    cmd[3] = "-p";
    cmd[4] = "0";
    System.arraycopy(extraArgs, 0, cmd, 5, extraArgs.length);
    process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    CompletableFuture<Integer> portFound = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  log.append(line).append('\n');
                  Matcher m = LISTENING.matcher(line);
                  if (m.find()) {
                    portFound.complete(Integer.parseInt(m.group(1)));
                  }
                  Matcher st = STAMP.matcher(line);
                  if (st.find()) {
                    stampPort.complete(Integer.parseInt(st.group(1)));
                  }
                }
              } catch (IOException e) {
                portFound.completeExceptionally(e);
              }
              portFound.completeExceptionally(new IOException("responder exited: " + log));
            },
            "nmprobe-responder-log");
    reader.setDaemon(true);
    reader.start();
    try {
      port = portFound.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IllegalStateException("responder did not start: " + log, e);
    }
  }

  int port() {
    return port;
  }

  /** The STAMP reflector's UDP port, when started with {@code --stamp-port}. */
  int stampPort() throws Exception {
    return stampPort.get(10, TimeUnit.SECONDS);
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
