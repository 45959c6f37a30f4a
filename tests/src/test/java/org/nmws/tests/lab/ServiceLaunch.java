package org.nmws.tests.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The java command line that starts the service jar in the lab, started about thirty times a
 * run: from the jar extracted (Spring Boot's tools jarmode) with a class-data-sharing archive
 * made by one training start, and the client compiler only. That brings a start from about
 * 6 s to under 3 s on two cores; the code that runs is the same jar's. Any step that fails
 * falls back to the jar as built, so a test never depends on this. The end-to-end tests that
 * start the jar as a process of its own (ServiceProcess) use it too.
 */
public final class ServiceLaunch {
    private static List<String> prefix;

    private ServiceLaunch() {
    }

    /** java, its options and -jar with the jar to run; the service's own arguments follow. */
    public static synchronized List<String> command(Path jar, String maxHeap) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        if (prefix == null) {
            prefix = prepare(java, jar.toAbsolutePath());
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx" + maxHeap);
        cmd.addAll(prefix);
        return cmd;
    }

    private static List<String> prepare(String java, Path jar) {
        try {
            Path dir = Path.of("target", "service-launch").toAbsolutePath(); // the tests module's
            Path app = dir.resolve("app");
            Path archive = dir.resolve("service.jsa");
            Path extracted = app.resolve(jar.getFileName());
            Files.createDirectories(dir);
            if (!Files.isRegularFile(extracted)
                    || Files.getLastModifiedTime(extracted).compareTo(Files.getLastModifiedTime(jar)) < 0) {
                Files.deleteIfExists(archive);
                run(List.of(java, "-Djarmode=tools", "-jar", jar.toString(), "extract", "--force", "--destination",
                        app.toString()), dir.resolve("extract.log"));
            }
            if (!Files.isRegularFile(archive)) {
                Path data = Files.createTempDirectory("nmws-cds-training");
                // start once to the refreshed context and exit, recording the classes loaded
                run(List.of(java, "-Xmx512m", "-XX:ArchiveClassesAtExit=" + archive, "-Dspring.context.exit=onRefresh", "-jar",
                        extracted.toString(), "--server.port=0", "--server.address=127.0.0.1", "--nmws.data-dir=" + data),
                        dir.resolve("training.log"));
                try (var files = Files.walk(data)) {
                    files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
            if (Files.isRegularFile(extracted) && Files.isRegularFile(archive)) {
                return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-XX:TieredStopAtLevel=1", "-jar",
                        extracted.toString());
            }
        } catch (IOException | InterruptedException e) {
            System.err.println("service launch: the jar as built (" + e + ")");
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        return List.of("-jar", jar.toString());
    }

    private static void run(List<String> cmd, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", cmd));
        }
        if (p.exitValue() != 0) {
            throw new IOException("exit " + p.exitValue() + ": " + String.join(" ", cmd) + " (see " + log + ")");
        }
    }
}
