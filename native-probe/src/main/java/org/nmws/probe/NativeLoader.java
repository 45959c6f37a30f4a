package org.nmws.probe;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Loads the JNI library {@code nmprobe_jni} once: from {@code java.library.path} first, else by
 * extracting {@value #RESOURCE} from the jar into a temporary file. Records whether the library is
 * available and, if not, why (for health checks); never throws.
 */
public final class NativeLoader {

  static final String LIBRARY = "nmprobe_jni";
  static final String RESOURCE = "/native/linux-x86_64/libnmprobe_jni.so";

  private static final Object LOCK = new Object();
  private static volatile boolean attempted;
  private static volatile Throwable cause;
  private static volatile String source = "not loaded";

  private NativeLoader() {}

  /** Loads the library if not yet attempted. Returns the cause of failure, if any. */
  public static Optional<Throwable> load() {
    synchronized (LOCK) {
      if (!attempted) {
        cause = doLoad();
        attempted = true;
      }
      return Optional.ofNullable(cause);
    }
  }

  /** Whether the library loaded. */
  public static boolean isAvailable() {
    return load().isEmpty();
  }

  /** Why the library did not load, if it did not. */
  public static Optional<Throwable> unavailabilityCause() {
    return load();
  }

  /** Where the library came from: "java.library.path", the extracted file, or "not loaded". */
  public static String source() {
    load();
    return source;
  }

  private static Throwable doLoad() {
    try {
      System.loadLibrary(LIBRARY);
      source = "java.library.path";
      return null;
    } catch (UnsatisfiedLinkError | SecurityException fromPath) {
      try {
        Path file = extract();
        System.load(file.toAbsolutePath().toString());
        source = file.toString();
        return null;
      } catch (Throwable fromJar) {
        UnsatisfiedLinkError e =
            new UnsatisfiedLinkError(
                "cannot load " + LIBRARY + ": not on java.library.path ("
                    + fromPath.getMessage() + ") and not loadable from the jar ("
                    + fromJar.getMessage() + ")");
        e.initCause(fromJar);
        e.addSuppressed(fromPath);
        return e;
      }
    }
  }

  private static Path extract() throws IOException {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new UnsupportedOperationException(
          "no bundled native library for " + os + "/" + arch + " (only linux-x86_64)");
    }
    try (InputStream in = NativeLoader.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IOException("resource " + RESOURCE + " not found on the class path");
      }
      Path file = Files.createTempFile("libnmprobe_jni-", ".so");
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    }
  }
}
