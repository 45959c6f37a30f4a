package org.nmws.probe;

/**
 * Parameters of a request-response latency test. Validated on construction: every out-of-range
 * value throws {@link IllegalArgumentException} naming the field and its allowed range.
 *
 * @param host responder host name or IPv4/IPv6 literal
 * @param port responder control port, 1..65535
 * @param count frames to send, 1..{@value #MAX_COUNT}
 * @param packetSize UDP payload bytes per frame, {@value #MIN_SIZE}..{@value #MAX_SIZE}
 * @param intervalNanos spacing between sends, 0 (back to back)..{@value #MAX_NANOS}
 * @param timeoutNanos how long to wait for replies after the last send, 0..{@value #MAX_NANOS}
 * @param ttl outgoing IP TTL / hop limit, 1..255, or 0 for the system default
 * @param closedLoop ping-pong, as sockperf's: each frame leaves once the one before was answered
 *     (or waited {@code timeoutNanos} for), and {@code intervalNanos} after it at the earliest. The
 *     responder admits count x (interval + timeout) for it, the longest an honest loop can take.
 * @param shared a light test (its SESSION says class=normal): it may run beside other shared ones
 *     on a responder that serves several at once ({@code nmprobe-responder --sessions N})
 */
public record RoundTripSpec(
    String host, int port, int count, int packetSize, long intervalNanos, long timeoutNanos, int ttl,
    boolean closedLoop, boolean shared)
    implements ProbeSpec<RoundTripResult> {

  public static final int DEFAULT_PORT = 8700;
  public static final int MAX_COUNT = 1_000_000;
  public static final int MIN_SIZE = 32;
  public static final int MAX_SIZE = 9000;
  public static final long MAX_NANOS = 60_000_000_000L;

  public RoundTripSpec {
    if (host == null || host.isBlank() || host.length() > 255 || !host.strip().equals(host)) {
      throw new IllegalArgumentException(
          "host must be a non-blank name or address of at most 255 characters without spaces, was "
              + (host == null ? "null" : "'" + host + "'"));
    }
    range("port", port, 1, 65535);
    range("count", count, 1, MAX_COUNT);
    range("packetSize", packetSize, MIN_SIZE, MAX_SIZE);
    range("intervalNanos", intervalNanos, 0, MAX_NANOS);
    range("timeoutNanos", timeoutNanos, 0, MAX_NANOS);
    range("ttl", ttl, 0, 255);
  }

  /** An open-loop test: frames leave on their schedule, answered or not. */
  public RoundTripSpec(
      String host, int port, int count, int packetSize, long intervalNanos, long timeoutNanos, int ttl) {
    this(host, port, count, packetSize, intervalNanos, timeoutNanos, ttl, false, false);
  }

  /** Port 8700, 10 frames of 64 bytes 1 ms apart, 1 s timeout, system TTL. */
  public static RoundTripSpec defaults(String host) {
    return new RoundTripSpec(host, DEFAULT_PORT, 10, 64, 1_000_000L, 1_000_000_000L, 0);
  }

  public RoundTripSpec withPort(int newPort) {
    return new RoundTripSpec(host, newPort, count, packetSize, intervalNanos, timeoutNanos, ttl, closedLoop, shared);
  }

  public RoundTripSpec withCount(int newCount) {
    return new RoundTripSpec(host, port, newCount, packetSize, intervalNanos, timeoutNanos, ttl, closedLoop, shared);
  }

  public RoundTripSpec withPacketSize(int newSize) {
    return new RoundTripSpec(host, port, count, newSize, intervalNanos, timeoutNanos, ttl, closedLoop, shared);
  }

  public RoundTripSpec withIntervalNanos(long newInterval) {
    return new RoundTripSpec(host, port, count, packetSize, newInterval, timeoutNanos, ttl, closedLoop, shared);
  }

  public RoundTripSpec withTimeoutNanos(long newTimeout) {
    return new RoundTripSpec(host, port, count, packetSize, intervalNanos, newTimeout, ttl, closedLoop, shared);
  }

  public RoundTripSpec withTtl(int newTtl) {
    return new RoundTripSpec(host, port, count, packetSize, intervalNanos, timeoutNanos, newTtl, closedLoop, shared);
  }

  public RoundTripSpec withClosedLoop(boolean loop) {
    return new RoundTripSpec(host, port, count, packetSize, intervalNanos, timeoutNanos, ttl, loop, shared);
  }

  public RoundTripSpec withShared(boolean share) {
    return new RoundTripSpec(host, port, count, packetSize, intervalNanos, timeoutNanos, ttl, closedLoop, share);
  }

  static void range(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + " must be in " + min + ".." + max + ", was " + value);
    }
  }

  @Override
  public boolean keyedByResponder() {
    return true;
  }

  @Override
  public String kind() {
    return "rr";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port).i64("count", count).i64("size", packetSize)
        .i64("intervalNs", intervalNanos).i64("timeoutNs", timeoutNanos).i64("ttl", ttl)
        .i64("closedLoop", closedLoop ? 1 : 0).i64("shared", shared ? 1 : 0);
  }

  @Override
  public RoundTripResult read(NativeRecord result) {
    return RoundTripResult.fromNative(result);
  }
}
