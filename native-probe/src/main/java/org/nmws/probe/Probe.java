package org.nmws.probe;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * Entry point to the native probe engine. Each test validates its spec in Java (the spec
 * records), writes it as named fields ({@link NativeSpecWriter}) and makes one blocking native
 * call that runs the engine's kind of that name and returns the packed result, which the result
 * record reads by name ({@link NativeRecord}). Tests may run concurrently from different threads
 * (each has its own sockets), though a responder admits one session at a time.
 */
public final class Probe {

  /** Bumped whenever the native call changes; checked against the library's. */
  static final int ABI = 6;

  /** Size of the native error message buffer (the engine's NMP_ERRLEN). */
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

  private static volatile String responderKeyFile;

  /**
   * The shared key file every session to a responder proves it holds (a responder started with
   * --key-file admits only those), or null for none. Process-wide because it is the
   * operator's one secret for all of this point's responders, set once at start-up; the
   * engine reads the file (16..1024 bytes, mode 600) when it opens each session.
   */
  public static void useResponderKey(String keyFile) {
    responderKeyFile = keyFile == null || keyFile.isBlank() ? null : keyFile;
  }

  private static volatile String stampKeyFile;

  /**
   * The key file of authenticated STAMP tests (owampd's pfs format: "KEYID HEXKEY" a line, mode
   * 600), or null for none. Process-wide, as {@link #useResponderKey}: the operator's keys,
   * set once at start-up; a test names only the key id ({@link StampSpec#keyId}) and the
   * engine reads the key from the file, so no key passes through a request.
   */
  public static void useStampKeys(String keyFile) {
    stampKeyFile = keyFile == null || keyFile.isBlank() ? null : keyFile;
  }

  /** Whether a key file for authenticated STAMP is set. */
  public static boolean hasStampKeys() {
    return stampKeyFile != null;
  }

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

  /**
   * Runs one test, blocking until it ends. When {@code control} is cancelled the test stops
   * early and the result has {@code cancelled() == true} and what was measured so far.
   *
   * @throws ProbeException when the responder is busy, refuses, cannot be reached or answers
   *     wrongly, when the engine refuses the spec, or when the native engine is unavailable
   * @throws IllegalStateException when {@code control} is already used by a running test
   */
  public static <R> R run(ProbeSpec<R> spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    String kind = spec.kind();
    requireAvailable(kind);
    NativeSpecWriter out = new NativeSpecWriter();
    spec.writeTo(out);
    String key = responderKeyFile;
    if (key != null && spec.keyedByResponder()) {
      out.str("keyFile", key);
    }
    if (spec instanceof StampSpec stamp && stamp.authenticated()) {
      String keys = stampKeyFile;
      if (keys == null) {
        throw new ProbeException(ProbeException.Reason.REFUSED, 0,
            "stamp: authenticated mode asked for key " + stamp.keyId()
                + ", but no STAMP key file is set (nmws.key-file)", null);
      }
      out.str("keyFile", keys);
    }
    byte[] packed = out.toByteArray();
    byte[][] result = new byte[1][];
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nRun(kind, packed, control.cancelFlag(), control, result, err);
    } finally {
      control.release();
    }
    if (rc < 0 && !(rc == -ECANCELED && result[0] != null)) {
      throw failure(kind, -rc, message(err));
    }
    if (result[0] == null) {
      throw NativeRecord.malformed(kind + ": the engine returned no result");
    }
    return spec.read(NativeRecord.parse(result[0]));
  }

  /** Runs a request-response test without progress or cancellation. */
  public static RoundTripResult roundTrip(RoundTripSpec spec) {
    return run(spec, new ProbeControl());
  }

  /** Request-response latency test against an nmprobe responder; see {@link #run}. */
  public static RoundTripResult roundTrip(RoundTripSpec spec, ProbeControl control) {
    return run(spec, control);
  }

  /** Runs a UDP stream test without progress or cancellation. */
  public static UdpStreamResult udpStream(UdpStreamSpec spec) {
    return run(spec, new ProbeControl());
  }

  /**
   * One-way UDP stream test to an nmprobe responder; cancelling stops sending and the records of
   * what was sent are still fetched. See {@link #run}.
   */
  public static UdpStreamResult udpStream(UdpStreamSpec spec, ProbeControl control) {
    return run(spec, control);
  }

  /** Runs a latency scan without progress or cancellation. */
  public static LatencyScanResult latencyScan(LatencyScanSpec spec) {
    return run(spec, new ProbeControl());
  }

  /**
   * One request-response test per frame size and a line through the per-size minimum RTT.
   * Progress counts frames over all sizes; cancelling keeps the sizes measured so far.
   */
  public static LatencyScanResult latencyScan(LatencyScanSpec spec, ProbeControl control) {
    return run(spec, control);
  }

  /**
   * Reads this host's clock state (clock source and NTP synchronisation) with adjtimex(2) in
   * read-only mode.
   *
   * @throws ProbeException when adjtimex fails or the native engine is unavailable
   */
  public static ClockState clockState() {
    return clockState(null);
  }

  /**
   * Reads this host's clock state, asking the ptp4l at {@code ptpSocket} (null: the default), which
   * becomes the engine's for every later test (the one-way delays' clocks).
   */
  public static ClockState clockState(String ptpSocket) {
    return run(new ClockStateSpec(ptpSocket), new ProbeControl());
  }

  /**
   * Asks a responder's calendar for a slot (RESERVE): granted, or busy with its next free start.
   *
   * @throws ProbeException when the responder cannot be reached, refuses (its limits, its key) or
   *     does not keep a calendar (an older responder refuses the verb: Reason.REFUSED)
   */
  public static SlotAnswer reserve(SlotRequest request) {
    return run(new SlotSpec(request, request.host(), request.port(), 0), new ProbeControl());
  }

  /** Gives a reservation back before its end (RELEASE), so others may use the rest of it. */
  public static void release(String host, int port, long reservation) {
    if (reservation <= 0 || reservation > 0xffffffffL) {
      throw new IllegalArgumentException("release: reservation " + reservation + " is outside 1..2^32-1");
    }
    run(new SlotSpec(null, host, port, reservation), new ProbeControl());
  }

  /** Runs a TCP throughput test without progress or cancellation. */
  public static TcpStreamResult tcpStream(TcpStreamSpec spec) {
    return run(spec, new ProbeControl());
  }

  /**
   * Memory-to-memory TCP throughput test (one or more streams). Progress counts milliseconds of
   * sending time; cancelling stops sending at a message boundary. See {@link #run}.
   */
  public static TcpStreamResult tcpStream(TcpStreamSpec spec, ProbeControl control) {
    return run(spec, control);
  }

  /** Runs a hop list without progress or cancellation. */
  public static HopListResult hopList(HopListSpec spec) {
    return run(spec, new ProbeControl());
  }

  /**
   * Lists the hops to a destination with TTL-limited UDP probes (unprivileged; ICMP answers read
   * from the socket's error queue). No responder is needed. Progress counts probes sent.
   */
  public static HopListResult hopList(HopListSpec spec, ProbeControl control) {
    return run(spec, control);
  }

  /** Runs a capacity test without progress or cancellation. */
  public static CapacityResult capacity(CapacitySpec spec) {
    return run(spec, new ProbeControl());
  }

  /**
   * Path capacity by packet-train dispersion: a pilot train (unless {@link
   * CapacitySpec#gapNanos()} is set), then the trains in one stream session. Progress counts
   * frames of the trains; cancelling stops between trains.
   */
  public static CapacityResult capacity(CapacitySpec spec, ProbeControl control) {
    return run(spec, control);
  }

  /** Runs a per-hop capacity test without progress or cancellation. */
  public static HopCapacityResult hopCapacity(HopCapacitySpec spec) {
    return run(spec, new ProbeControl());
  }

  /**
   * Capacity up to each hop (Trace-Rate style) from the ICMP answers to TTL-limited trains.
   * Unprivileged; no responder. Progress counts trains over all hops.
   */
  public static HopCapacityResult hopCapacity(HopCapacitySpec spec, ProbeControl control) {
    return run(spec, control);
  }

  /** Runs an available-bandwidth rate scan without progress or cancellation. */
  public static AvailableBandwidthResult availableBandwidth(AvailableBandwidthSpec spec) {
    return run(spec, new ProbeControl());
  }

  /**
   * Available bandwidth by a rate scan of UDP streams, one session per step. Progress counts
   * steps; cancelling keeps the steps so far.
   */
  public static AvailableBandwidthResult availableBandwidth(
      AvailableBandwidthSpec spec, ProbeControl control) {
    return run(spec, control);
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
  private static final int ECANCELED = 125;

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
    String text = nativeMessage.isEmpty() ? call + ": error " + errno : nativeMessage;
    return new ProbeException(reason, errno, text, null);
  }

  private static native int nAbi();

  private static native String nVersion();

  /**
   * Runs the engine's kind {@code kind} with a packed spec. Returns 0, -ECANCELED (with a
   * result) or -errno with the message in {@code errorMessage}; the packed result goes to
   * {@code result[0]}.
   */
  private static native int nRun(
      String kind,
      byte[] spec,
      ByteBuffer cancelFlag,
      ProbeControl control,
      byte[][] result,
      byte[] errorMessage);
}
