package org.nmws.probe;

import static org.nmws.probe.RoundTripSpec.range;

/**
 * Parameters of a path capacity test (path.bandwidth.capacity) by packet-train dispersion:
 * {@code trains} trains of {@code trainLength} back-to-back frames. Validated on construction:
 * out-of-range values throw {@link IllegalArgumentException} naming the field and its range.
 *
 * @param host responder host name or IPv4/IPv6 literal
 * @param port responder control port, 1..65535
 * @param trains trains to send, 1..{@value #MAX_TRAINS}
 * @param trainLength frames per train, 4..{@value #MAX_TRAIN_LENGTH}; trains * trainLength at
 *     most 1,000,000
 * @param packetSize UDP payload bytes per frame, 32..9000
 * @param skip frames at the head of each train left out of its estimate (a token bucket lets
 *     its burst through at line rate there), 1..trainLength-3, or 0 for trainLength / 2
 * @param gapNanos time from one train's start to the next, 100 us..10 s, or 0 for automatic (4
 *     times the arrival span of a pilot train, 1 ms..1 s)
 * @param timeoutNanos wait after the last frame before fetching the receiver's records, 0..60 s
 *     (0 = 500 ms)
 * @param ttl outgoing IP TTL / hop limit, 1..255, or 0 for the system default
 */
public record CapacitySpec(
    String host,
    int port,
    int trains,
    int trainLength,
    int packetSize,
    int skip,
    long gapNanos,
    long timeoutNanos,
    int ttl) implements ProbeSpec<CapacityResult> {

  public static final int MAX_TRAINS = 1000;
  public static final int MAX_TRAIN_LENGTH = 10_000;

  public CapacitySpec {
    new RoundTripSpec(host, port, 1, packetSize, 0, timeoutNanos, ttl);
    range("trains", trains, 1, MAX_TRAINS);
    range("trainLength", trainLength, 4, MAX_TRAIN_LENGTH);
    range("trains * trainLength", (long) trains * trainLength, 4, RoundTripSpec.MAX_COUNT);
    if (skip != 0) {
      range("skip", skip, 1, trainLength - 3);
    }
    if (gapNanos != 0) {
      range("gapNanos", gapNanos, 100_000L, 10_000_000_000L);
    }
  }

  /** Port 8700, 40 trains of 100 frames of 1472 bytes, half of each train skipped, auto gap. */
  public static CapacitySpec defaults(String host) {
    return new CapacitySpec(host, RoundTripSpec.DEFAULT_PORT, 40, 100, 1472, 0, 0, 500_000_000L, 0);
  }

  public CapacitySpec withPort(int newPort) {
    return new CapacitySpec(host, newPort, trains, trainLength, packetSize, skip, gapNanos,
        timeoutNanos, ttl);
  }

  public CapacitySpec withTrains(int newTrains, int newTrainLength) {
    return new CapacitySpec(host, port, newTrains, newTrainLength, packetSize, skip, gapNanos,
        timeoutNanos, ttl);
  }

  public CapacitySpec withPacketSize(int newSize) {
    return new CapacitySpec(host, port, trains, trainLength, newSize, skip, gapNanos,
        timeoutNanos, ttl);
  }

  public CapacitySpec withSkip(int newSkip) {
    return new CapacitySpec(host, port, trains, trainLength, packetSize, newSkip, gapNanos,
        timeoutNanos, ttl);
  }

  public CapacitySpec withGapNanos(long newGap) {
    return new CapacitySpec(host, port, trains, trainLength, packetSize, skip, newGap,
        timeoutNanos, ttl);
  }

  public CapacitySpec withTimeoutNanos(long newTimeout) {
    return new CapacitySpec(host, port, trains, trainLength, packetSize, skip, gapNanos,
        newTimeout, ttl);
  }

  @Override
  public boolean keyedByResponder() {
    return true;
  }

  @Override
  public String kind() {
    return "capacity";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port).i64("trains", trains).i64("trainLen", trainLength)
        .i64("size", packetSize).i64("skip", skip).i64("gapNs", gapNanos)
        .i64("timeoutNs", timeoutNanos).i64("ttl", ttl);
  }

  @Override
  public CapacityResult read(NativeRecord result) {
    return CapacityResult.fromNative(result);
  }
}
