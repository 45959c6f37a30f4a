package org.nmws.probe;

import static org.nmws.probe.RoundTripSpec.range;

/**
 * Parameters of a memory-to-memory TCP throughput test (path.bandwidth.achievable.TCP, and
 * .TCP.multiStream with more than one stream). Validated on construction: out-of-range values
 * throw {@link IllegalArgumentException} naming the field and its range.
 *
 * @param host responder host name or IPv4/IPv6 literal
 * @param port responder control port, 1..65535
 * @param streams parallel TCP connections, 1..16
 * @param messageSize bytes per message (each write), 32..1048576
 * @param intervalNanos spacing between a stream's messages (or the CBR period), 0 = back to
 *     back, up to 60 s
 * @param constantBitRate messages on a fixed schedule (start + i * interval) with each message's
 *     lateness recorded at the receiver; needs intervalNanos > 0
 * @param windowBytes socket buffer (SO_SNDBUF here, SO_RCVBUF at the responder), 0 = kernel
 *     autotuning, else 2048..268435456
 * @param durationNanos sending time, 1 ms..3600 s
 * @param byteLimit stop after this many bytes over all streams (whole messages), 0 = no limit
 * @param sampleIntervalNanos time-series bin and TCP_INFO sampling interval, 1 ms..60 s
 * @param timeoutNanos wait for acknowledgement and for the receiver's results, 1 ms..60 s
 */
public record TcpStreamSpec(
    String host,
    int port,
    int streams,
    int messageSize,
    long intervalNanos,
    boolean constantBitRate,
    int windowBytes,
    long durationNanos,
    long byteLimit,
    long sampleIntervalNanos,
    long timeoutNanos,
    String congestion) implements ProbeSpec<TcpStreamResult> {

  public static final int MAX_STREAMS = 16;
  public static final int MAX_MESSAGE = 1 << 20;
  public static final int MAX_WINDOW = 256 << 20;
  private static final long MAX_BYTE_LIMIT = 1_000_000_000_000_000_000L;
  /** A kernel congestion-control name (TCP_CA_NAME_MAX is 16 with the NUL). */
  private static final java.util.regex.Pattern CONGESTION =
      java.util.regex.Pattern.compile("[a-z0-9_-]{1,15}");

  public TcpStreamSpec {
    new RoundTripSpec(host, port, 1, RoundTripSpec.MIN_SIZE, 0, 0, 0);
    range("streams", streams, 1, MAX_STREAMS);
    range("messageSize", messageSize, 32, MAX_MESSAGE);
    range("intervalNanos", intervalNanos, constantBitRate ? 1 : 0, RoundTripSpec.MAX_NANOS);
    if (windowBytes != 0) {
      range("windowBytes", windowBytes, 2048, MAX_WINDOW);
    }
    range("durationNanos", durationNanos, 1_000_000L, 3_600_000_000_000L);
    range("byteLimit", byteLimit, 0, Long.MAX_VALUE);
    range("sampleIntervalNanos", sampleIntervalNanos, 1_000_000L, RoundTripSpec.MAX_NANOS);
    range("timeoutNanos", timeoutNanos, 1_000_000L, RoundTripSpec.MAX_NANOS);
    if (congestion != null && !isCongestionName(congestion)) {
      throw new IllegalArgumentException("congestion must be 1..15 of [a-z0-9_-], was " + congestion);
    }
  }

  /** True for what the kernel may name a congestion control: 1..15 of [a-z0-9_-]. */
  public static boolean isCongestionName(String name) {
    return CONGESTION.matcher(name).matches();
  }

  /** The system's default congestion control. */
  public TcpStreamSpec(String host, int port, int streams, int messageSize, long intervalNanos,
      boolean constantBitRate, int windowBytes, long durationNanos, long byteLimit,
      long sampleIntervalNanos, long timeoutNanos) {
    this(host, port, streams, messageSize, intervalNanos, constantBitRate, windowBytes,
        durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, null);
  }

  /** Port 8700, one stream of 128 KiB messages back to back for 10 s, autotuned window. */
  public static TcpStreamSpec defaults(String host) {
    return new TcpStreamSpec(host, RoundTripSpec.DEFAULT_PORT, 1, 131072, 0, false, 0,
        10_000_000_000L, 0, 100_000_000L, 5_000_000_000L);
  }

  public TcpStreamSpec withPort(int newPort) {
    return new TcpStreamSpec(host, newPort, streams, messageSize, intervalNanos, constantBitRate,
        windowBytes, durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  public TcpStreamSpec withStreams(int newStreams) {
    return new TcpStreamSpec(host, port, newStreams, messageSize, intervalNanos, constantBitRate,
        windowBytes, durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  public TcpStreamSpec withMessageSize(int newSize) {
    return new TcpStreamSpec(host, port, streams, newSize, intervalNanos, constantBitRate,
        windowBytes, durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  /** Spaced messages: each stream waits this long after handing a message to the kernel. */
  public TcpStreamSpec withSpacingNanos(long newInterval) {
    return new TcpStreamSpec(host, port, streams, messageSize, newInterval, false, windowBytes,
        durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  /** Constant bit rate: every stream's message i is due at start + i * period. */
  public TcpStreamSpec withConstantBitRate(long periodNanos) {
    return new TcpStreamSpec(host, port, streams, messageSize, periodNanos, true, windowBytes,
        durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  public TcpStreamSpec withWindowBytes(int newWindow) {
    return new TcpStreamSpec(host, port, streams, messageSize, intervalNanos, constantBitRate,
        newWindow, durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  public TcpStreamSpec withDurationNanos(long newDuration) {
    return new TcpStreamSpec(host, port, streams, messageSize, intervalNanos, constantBitRate,
        windowBytes, newDuration, byteLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  public TcpStreamSpec withByteLimit(long newLimit) {
    return new TcpStreamSpec(host, port, streams, messageSize, intervalNanos, constantBitRate,
        windowBytes, durationNanos, newLimit, sampleIntervalNanos, timeoutNanos, congestion);
  }

  public TcpStreamSpec withSampleIntervalNanos(long newInterval) {
    return new TcpStreamSpec(host, port, streams, messageSize, intervalNanos, constantBitRate,
        windowBytes, durationNanos, byteLimit, newInterval, timeoutNanos, congestion);
  }

  public TcpStreamSpec withTimeoutNanos(long newTimeout) {
    return new TcpStreamSpec(host, port, streams, messageSize, intervalNanos, constantBitRate,
        windowBytes, durationNanos, byteLimit, sampleIntervalNanos, newTimeout, congestion);
  }

  /** Every stream with this congestion control (null: the system's default). */
  public TcpStreamSpec withCongestion(String newCongestion) {
    return new TcpStreamSpec(host, port, streams, messageSize, intervalNanos, constantBitRate,
        windowBytes, durationNanos, byteLimit, sampleIntervalNanos, timeoutNanos, newCongestion);
  }

  @Override
  public boolean keyedByResponder() {
    return true;
  }

  @Override
  public String kind() {
    return "tcp";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    // a byte limit beyond 1e18 (years at any rate) is no limit: the engine takes 0..1e18
    out.str("host", host).i64("port", port).i64("streams", streams).i64("size", messageSize)
        .i64("intervalNs", intervalNanos).bool("cbr", constantBitRate).i64("window", windowBytes)
        .i64("durationNs", durationNanos).i64("bytes", byteLimit > MAX_BYTE_LIMIT ? 0 : byteLimit)
        .i64("sampleNs", sampleIntervalNanos).i64("timeoutNs", timeoutNanos);
    if (congestion != null) {
      out.str("congestion", congestion);
    }
  }

  @Override
  public TcpStreamResult read(NativeRecord result) {
    return TcpStreamResult.fromNative(result);
  }
}
