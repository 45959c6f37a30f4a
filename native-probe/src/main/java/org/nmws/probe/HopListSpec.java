package org.nmws.probe;

import static org.nmws.probe.RoundTripSpec.range;

/**
 * Parameters of a hop list (path.hoplist): TTL-limited UDP probes to a high port of the
 * destination. Validated on construction.
 *
 * @param host destination name or IPv4/IPv6 literal
 * @param maxTtl largest TTL probed, 1..64
 * @param probesPerHop probes per TTL, 1..10
 * @param waitNanos wait for each probe's answer, 1 ms..60 s
 * @param firstPort destination port of the first probe (each probe adds one), 1..65535
 * @param packetSize UDP payload bytes, 0..1472
 * @param parallel probes in flight at once, 1..64
 * @param resolveNames whether to look up the reverse name of each hop
 * @param resolveTimeoutNanos deadline of each reverse lookup, 1 ms..10 s
 */
public record HopListSpec(
    String host,
    int maxTtl,
    int probesPerHop,
    long waitNanos,
    int firstPort,
    int packetSize,
    int parallel,
    boolean resolveNames,
    long resolveTimeoutNanos) implements ProbeSpec<HopListResult> {

  public HopListSpec {
    new RoundTripSpec(host, 1, 1, RoundTripSpec.MIN_SIZE, 0, 0, 0);
    range("maxTtl", maxTtl, 1, 64);
    range("probesPerHop", probesPerHop, 1, 10);
    range("waitNanos", waitNanos, 1_000_000L, RoundTripSpec.MAX_NANOS);
    range("firstPort", firstPort, 1, 65535);
    range("packetSize", packetSize, 0, 1472);
    range("parallel", parallel, 1, 64);
    range("resolveTimeoutNanos", resolveTimeoutNanos, 1_000_000L, 10_000_000_000L);
  }

  /** 30 hops, 3 probes each, 1 s wait, port 33434, 16 in flight, no name lookups. */
  public static HopListSpec defaults(String host) {
    return new HopListSpec(host, 30, 3, 1_000_000_000L, 33434, 32, 16, false, 500_000_000L);
  }

  public HopListSpec withMaxTtl(int newMax) {
    return new HopListSpec(host, newMax, probesPerHop, waitNanos, firstPort, packetSize, parallel,
        resolveNames, resolveTimeoutNanos);
  }

  public HopListSpec withProbesPerHop(int n) {
    return new HopListSpec(host, maxTtl, n, waitNanos, firstPort, packetSize, parallel,
        resolveNames, resolveTimeoutNanos);
  }

  public HopListSpec withWaitNanos(long newWait) {
    return new HopListSpec(host, maxTtl, probesPerHop, newWait, firstPort, packetSize, parallel,
        resolveNames, resolveTimeoutNanos);
  }

  public HopListSpec withResolveNames(boolean resolve) {
    return new HopListSpec(host, maxTtl, probesPerHop, waitNanos, firstPort, packetSize, parallel,
        resolve, resolveTimeoutNanos);
  }

  @Override
  public String kind() {
    return "hops";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("maxTtl", maxTtl).i64("probes", probesPerHop)
        .i64("waitMs", waitNanos / 1_000_000L).i64("port", firstPort).i64("size", packetSize)
        .i64("parallel", parallel).bool("resolve", resolveNames)
        .i64("resolveTimeoutMs", resolveTimeoutNanos / 1_000_000L);
  }

  @Override
  public HopListResult read(NativeRecord result) {
    return HopListResult.fromNative(result);
  }
}
