package org.nmws.probe;

import static org.nmws.probe.RoundTripSpec.range;

/**
 * Parameters of a one-way UDP stream test (client to responder). Validated on construction:
 * out-of-range values throw {@link IllegalArgumentException} naming the field and its range.
 *
 * @param host responder host name or IPv4/IPv6 literal
 * @param port responder control port, 1..65535
 * @param count frames to send, 1..{@value RoundTripSpec#MAX_COUNT}
 * @param packetSize UDP payload bytes per frame, 32..9000
 * @param intervalNanos spacing between sends, 0 = as fast as possible, up to 60 s
 * @param timeoutNanos wait after the last send before fetching the receiver's records, 0..60 s
 * @param ttl outgoing IP TTL / hop limit, 1..255, or 0 for the system default
 * @param histogramBins inter-arrival histogram bins, 1..1000
 * @param histogramBinWidthNanos bin width, 0 = automatic (covers minimum..99th percentile)
 * @param shared a light test (its SESSION says class=normal): it may run beside other shared ones
 *     on a responder that serves several at once ({@code nmprobe-responder --sessions N})
 */
public record UdpStreamSpec(
    String host,
    int port,
    int count,
    int packetSize,
    long intervalNanos,
    long timeoutNanos,
    int ttl,
    int histogramBins,
    long histogramBinWidthNanos,
    boolean shared) implements ProbeSpec<UdpStreamResult> {

  public UdpStreamSpec {
    new RoundTripSpec(host, port, count, packetSize, intervalNanos, timeoutNanos, ttl);
    range("histogramBins", histogramBins, 1, 1000);
    range("histogramBinWidthNanos", histogramBinWidthNanos, 0, RoundTripSpec.MAX_NANOS);
  }

  /** An exclusive stream: it runs alone on the responder. */
  public UdpStreamSpec(String host, int port, int count, int packetSize, long intervalNanos,
      long timeoutNanos, int ttl, int histogramBins, long histogramBinWidthNanos) {
    this(host, port, count, packetSize, intervalNanos, timeoutNanos, ttl, histogramBins,
        histogramBinWidthNanos, false);
  }

  public UdpStreamSpec withShared(boolean share) {
    return new UdpStreamSpec(host, port, count, packetSize, intervalNanos, timeoutNanos, ttl,
        histogramBins, histogramBinWidthNanos, share);
  }

  /** Port 8700, 1000 frames of 1472 bytes 100 us apart (about 118 Mbit/s), 500 ms linger. */
  public static UdpStreamSpec defaults(String host) {
    return new UdpStreamSpec(
        host, RoundTripSpec.DEFAULT_PORT, 1000, 1472, 100_000L, 500_000_000L, 0, 50, 0);
  }

  public UdpStreamSpec withPort(int newPort) {
    return new UdpStreamSpec(host, newPort, count, packetSize, intervalNanos, timeoutNanos, ttl,
        histogramBins, histogramBinWidthNanos, shared);
  }

  public UdpStreamSpec withCount(int newCount) {
    return new UdpStreamSpec(host, port, newCount, packetSize, intervalNanos, timeoutNanos, ttl,
        histogramBins, histogramBinWidthNanos, shared);
  }

  public UdpStreamSpec withPacketSize(int newSize) {
    return new UdpStreamSpec(host, port, count, newSize, intervalNanos, timeoutNanos, ttl,
        histogramBins, histogramBinWidthNanos, shared);
  }

  public UdpStreamSpec withIntervalNanos(long newInterval) {
    return new UdpStreamSpec(host, port, count, packetSize, newInterval, timeoutNanos, ttl,
        histogramBins, histogramBinWidthNanos, shared);
  }

  public UdpStreamSpec withTimeoutNanos(long newTimeout) {
    return new UdpStreamSpec(host, port, count, packetSize, intervalNanos, newTimeout, ttl,
        histogramBins, histogramBinWidthNanos, shared);
  }

  public UdpStreamSpec withTtl(int newTtl) {
    return new UdpStreamSpec(host, port, count, packetSize, intervalNanos, timeoutNanos, newTtl,
        histogramBins, histogramBinWidthNanos, shared);
  }

  public UdpStreamSpec withHistogram(int bins, long binWidthNanos) {
    return new UdpStreamSpec(host, port, count, packetSize, intervalNanos, timeoutNanos, ttl, bins,
        binWidthNanos, shared);
  }

  @Override
  public boolean keyedByResponder() {
    return true;
  }

  @Override
  public String kind() {
    return "stream";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port).i64("count", count).i64("size", packetSize)
        .i64("intervalNs", intervalNanos).i64("timeoutNs", timeoutNanos).i64("ttl", ttl)
        .i64("bins", histogramBins).i64("binWidthNs", histogramBinWidthNanos)
        .i64("shared", shared ? 1 : 0);
  }

  @Override
  public UdpStreamResult read(NativeRecord result) {
    return UdpStreamResult.fromNative(result);
  }
}
