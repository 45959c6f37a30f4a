package org.nmws.probe;

import static org.nmws.probe.RoundTripSpec.range;

import java.util.Arrays;

/**
 * Parameters of a latency-versus-frame-size scan: one request-response test of {@code
 * countPerSize} frames per size. Validated on construction.
 *
 * @param host responder host name or IPv4/IPv6 literal
 * @param port responder control port
 * @param sizes 2..64 UDP payload sizes, each 32..9000 (copied)
 * @param countPerSize frames per size
 * @param intervalNanos spacing between frames
 * @param timeoutNanos wait after the last frame of each size
 * @param ttl outgoing TTL, 0 = system default
 * @param histogramBins RTT histogram bins per size, 1..1000
 * @param rounds rounds over the sizes, each a share of every size's frames (ascending, then
 *     descending), so a transient on a host touches every size a little: 1..100, at most
 *     countPerSize; each round waits up to timeoutNanos for a lost reply
 */
public record LatencyScanSpec(
    String host,
    int port,
    int[] sizes,
    int countPerSize,
    long intervalNanos,
    long timeoutNanos,
    int ttl,
    int histogramBins,
    int rounds) implements ProbeSpec<LatencyScanResult> {

  public static final int MAX_SIZES = 64;
  public static final int DEFAULT_ROUNDS = 4;
  public static final int MAX_ROUNDS = 100;
  /** Frames over all sizes: the engine keeps every RTT to the end (NMP_SCAN_MAX_FRAMES). */
  public static final long MAX_FRAMES = 10_000_000L;

  public LatencyScanSpec {
    new RoundTripSpec(host, port, countPerSize, 64, intervalNanos, timeoutNanos, ttl);
    if (sizes == null || sizes.length < 2 || sizes.length > MAX_SIZES) {
      throw new IllegalArgumentException(
          "sizes must hold 2.." + MAX_SIZES + " entries, was "
              + (sizes == null ? "null" : sizes.length));
    }
    sizes = sizes.clone();
    for (int s : sizes) {
      range("sizes[]", s, RoundTripSpec.MIN_SIZE, RoundTripSpec.MAX_SIZE);
    }
    range("histogramBins", histogramBins, 1, 1000);
    range("rounds", rounds, 1, Math.min(MAX_ROUNDS, countPerSize));
    if ((long) countPerSize * sizes.length > MAX_FRAMES) {
      throw new IllegalArgumentException("countPerSize x sizes must be at most " + MAX_FRAMES + ", was "
          + (long) countPerSize * sizes.length);
    }
  }

  /** In DEFAULT_ROUNDS rounds, or one a frame when there are fewer frames a size. */
  public LatencyScanSpec(String host, int port, int[] sizes, int countPerSize, long intervalNanos,
      long timeoutNanos, int ttl, int histogramBins) {
    this(host, port, sizes, countPerSize, intervalNanos, timeoutNanos, ttl, histogramBins,
        Math.max(1, Math.min(DEFAULT_ROUNDS, countPerSize)));
  }

  /** Sizes 64, 128, 256, 512, 1024, 1472; 100 frames each 100 us apart; 1 s timeout. */
  public static LatencyScanSpec defaults(String host) {
    return new LatencyScanSpec(
        host, RoundTripSpec.DEFAULT_PORT, new int[] {64, 128, 256, 512, 1024, 1472}, 100,
        100_000L, 1_000_000_000L, 0, 50);
  }

  public LatencyScanSpec withPort(int newPort) {
    return new LatencyScanSpec(host, newPort, sizes, countPerSize, intervalNanos, timeoutNanos, ttl,
        histogramBins, rounds);
  }

  public LatencyScanSpec withSizes(int... newSizes) {
    return new LatencyScanSpec(host, port, newSizes, countPerSize, intervalNanos, timeoutNanos, ttl,
        histogramBins, rounds);
  }

  public LatencyScanSpec withCountPerSize(int n) {
    return new LatencyScanSpec(host, port, sizes, n, intervalNanos, timeoutNanos, ttl,
        histogramBins, Math.min(rounds, Math.max(1, n)));
  }

  public LatencyScanSpec withRounds(int n) {
    return new LatencyScanSpec(host, port, sizes, countPerSize, intervalNanos, timeoutNanos, ttl,
        histogramBins, n);
  }

  @Override
  public int[] sizes() {
    return sizes.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LatencyScanSpec s && host.equals(s.host) && port == s.port
        && Arrays.equals(sizes, s.sizes) && countPerSize == s.countPerSize
        && intervalNanos == s.intervalNanos && timeoutNanos == s.timeoutNanos && ttl == s.ttl
        && histogramBins == s.histogramBins && rounds == s.rounds;
  }

  @Override
  public int hashCode() {
    return host.hashCode() * 31 + Arrays.hashCode(sizes) + port;
  }

  @Override
  public String toString() {
    return "LatencyScanSpec[host=" + host + ", port=" + port + ", sizes=" + Arrays.toString(sizes)
        + ", countPerSize=" + countPerSize + ", intervalNanos=" + intervalNanos + ", rounds=" + rounds + "]";
  }

  @Override
  public boolean keyedByResponder() {
    return true;
  }

  @Override
  public String kind() {
    return "scan";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port).i32s("sizes", sizes).i64("count", countPerSize)
        .i64("intervalNs", intervalNanos).i64("timeoutNs", timeoutNanos).i64("ttl", ttl)
        .i64("bins", histogramBins).i64("rounds", rounds);
  }

  @Override
  public LatencyScanResult read(NativeRecord result) {
    return LatencyScanResult.fromNative(result);
  }
}
