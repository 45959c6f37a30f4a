package org.nmws.probe;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * Entry point to the native probe engine. Each test validates its spec in Java, then makes one
 * blocking native call that returns all per-frame data in arrays. Tests may run concurrently from
 * different threads (each has its own sockets), though a responder admits one session at a time.
 */
public final class Probe {

  /** Bumped whenever the native call layout below changes; checked against the library. */
  static final int ABI = 1;

  // Layout of the summary arrays passed to nRoundTrip. javac -h exports these constants into the
  // generated header, which the C side includes, so both sides share one definition.
  static final int RR_L_REQUESTED = 0;
  static final int RR_L_SENT = 1;
  static final int RR_L_RECEIVED = 2;
  static final int RR_L_LOST = 3;
  static final int RR_L_DUPLICATES = 4;
  static final int RR_L_OUT_OF_ORDER = 5;
  static final int RR_L_START_EPOCH = 6;
  static final int RR_L_END_EPOCH = 7;
  static final int RR_L_REMOTE_PORT = 8;
  static final int RR_L_CANCELLED = 9;
  static final int RR_LONGS = 10;

  static final int RR_D_LOSS_PERCENT = 0;
  static final int RR_D_MIN_RTT_MS = 1;
  static final int RR_D_MEAN_RTT_MS = 2;
  static final int RR_D_MEDIAN_RTT_MS = 3;
  static final int RR_D_MAX_RTT_MS = 4;
  static final int RR_D_MIN_IPD_MS = 5;
  static final int RR_D_MEAN_IPD_MS = 6;
  static final int RR_D_MAX_IPD_MS = 7;
  static final int RR_D_IQR_IPD_MS = 8;
  static final int RR_DOUBLES = 9;

  static final int ERRLEN = 256;

  private static final Throwable UNAVAILABLE;

  static {
    Throwable cause = NativeLoader.load().orElse(null);
    if (cause == null) {
      try {
        int abi = nAbi();
        if (abi != ABI) {
          cause =
              new UnsatisfiedLinkError(
                  "native library ABI " + abi + " does not match Java ABI " + ABI + " (from "
                      + NativeLoader.source() + ")");
        }
      } catch (UnsatisfiedLinkError e) {
        cause = e;
      }
    }
    UNAVAILABLE = cause;
  }

  private Probe() {}

  /** Whether the native engine is loaded and usable. */
  public static boolean isAvailable() {
    return UNAVAILABLE == null;
  }

  /** Why the native engine is not usable, if it is not. */
  public static Optional<Throwable> unavailabilityCause() {
    return Optional.ofNullable(UNAVAILABLE);
  }

  /** The native engine's version, e.g. "0.1.0". */
  public static String version() {
    requireAvailable("version");
    return nVersion();
  }

  /** Runs a request-response test without progress or cancellation. */
  public static RoundTripResult roundTrip(RoundTripSpec spec) {
    return roundTrip(spec, new ProbeControl());
  }

  /**
   * Runs a request-response latency test against an nmprobe responder, blocking until it ends.
   * When {@code control} is cancelled the test stops early and the result has {@code
   * cancelled() == true} and the frames measured so far.
   *
   * @throws ProbeException when the responder is busy, refuses, cannot be reached or answers
   *     wrongly, or when the native engine is unavailable
   * @throws IllegalStateException when {@code control} is already used by a running test
   */
  public static RoundTripResult roundTrip(RoundTripSpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("roundTrip");
    int n = spec.count();
    long[] sumL = new long[RR_LONGS];
    double[] sumD = new double[RR_DOUBLES];
    String[] addrs = new String[2];
    int[] seq = new int[n];
    long[] send = new long[n];
    long[] rtt = new long[n];
    int[] bytes = new int[n];
    int[] ttl = new int[n];
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc =
          nRoundTrip(
              spec.host().getBytes(StandardCharsets.UTF_8),
              spec.port(),
              n,
              spec.packetSize(),
              spec.intervalNanos(),
              spec.timeoutNanos(),
              spec.ttl(),
              control.cancelFlag(),
              control,
              sumL,
              sumD,
              addrs,
              seq,
              send,
              rtt,
              bytes,
              ttl,
              err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("roundTrip", -rc, message(err));
    }
    return new RoundTripResult(
        sumD[RR_D_MIN_RTT_MS],
        sumD[RR_D_MEAN_RTT_MS],
        sumD[RR_D_MEDIAN_RTT_MS],
        sumD[RR_D_MAX_RTT_MS],
        sumD[RR_D_MIN_IPD_MS],
        sumD[RR_D_MEAN_IPD_MS],
        sumD[RR_D_MAX_IPD_MS],
        sumD[RR_D_IQR_IPD_MS],
        sumD[RR_D_LOSS_PERCENT],
        (int) sumL[RR_L_REQUESTED],
        (int) sumL[RR_L_SENT],
        (int) sumL[RR_L_RECEIVED],
        (int) sumL[RR_L_LOST],
        (int) sumL[RR_L_DUPLICATES],
        (int) sumL[RR_L_OUT_OF_ORDER],
        sumL[RR_L_START_EPOCH],
        sumL[RR_L_END_EPOCH],
        addrs[0],
        addrs[1],
        (int) sumL[RR_L_REMOTE_PORT],
        seq,
        send,
        rtt,
        bytes,
        ttl,
        sumL[RR_L_CANCELLED] != 0);
  }

  private static void requireAvailable(String call) {
    if (UNAVAILABLE != null) {
      throw new ProbeException(
          ProbeException.Reason.UNAVAILABLE,
          0,
          call + ": native probe engine unavailable: " + UNAVAILABLE.getMessage(),
          UNAVAILABLE);
    }
  }

  private static String message(byte[] err) {
    int len = 0;
    while (len < err.length && err[len] != 0) {
      len++;
    }
    return new String(err, 0, len, StandardCharsets.UTF_8);
  }

  // errno values of Linux, as returned (negated) by the engine
  private static final int EPERM = 1;
  private static final int ENOENT = 2;
  private static final int EBUSY = 16;
  private static final int EPROTO = 71;
  private static final int ENETUNREACH = 101;
  private static final int ECONNRESET = 104;
  private static final int ETIMEDOUT = 110;
  private static final int ECONNREFUSED = 111;
  private static final int EHOSTUNREACH = 113;

  static ProbeException failure(String call, int errno, String nativeMessage) {
    ProbeException.Reason reason =
        switch (errno) {
          case EBUSY -> ProbeException.Reason.BUSY;
          case EPERM -> ProbeException.Reason.REFUSED;
          case ENOENT -> ProbeException.Reason.RESOLVE;
          case ECONNREFUSED, ECONNRESET, ENETUNREACH, EHOSTUNREACH -> ProbeException.Reason.CONNECT;
          case ETIMEDOUT -> ProbeException.Reason.TIMEOUT;
          case EPROTO -> ProbeException.Reason.PROTOCOL;
          default -> ProbeException.Reason.INTERNAL;
        };
    String text = nativeMessage.isEmpty() ? "error " + errno : nativeMessage;
    return new ProbeException(reason, errno, text, null);
  }

  private static native int nAbi();

  private static native String nVersion();

  private static native int nRoundTrip(
      byte[] host,
      int port,
      int count,
      int packetSize,
      long intervalNanos,
      long timeoutNanos,
      int ttl,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] summaryLongs,
      double[] summaryDoubles,
      String[] addresses,
      int[] seq,
      long[] sendEpochNanos,
      long[] rttNanos,
      int[] bytes,
      int[] ttlOut,
      byte[] errorMessage);
}
