package org.nmws.probe;

import static org.nmws.probe.RoundTripSpec.range;

/**
 * Parameters of a per-hop capacity test (path.bandwidth.capacity per hop, Trace-Rate style):
 * for each TTL, {@code trains} trains of {@code trainLength} back-to-back UDP frames whose TTL
 * expires at that hop; the dispersion of the ICMP answers is the capacity up to the hop. No
 * responder is needed. Validated on construction: out-of-range values throw {@link
 * IllegalArgumentException} naming the field and its range.
 *
 * @param host destination name or IPv4/IPv6 literal
 * @param hops measure TTL 1..hops, 1..64, or 0 to find the hop count with the hop list first
 * @param maxTtl largest TTL the hop list probes when {@code hops} is 0, 1..64
 * @param trains trains per hop, 1..{@value #MAX_TRAINS}
 * @param trainLength frames per train, 2 (packet pairs)..{@value #MAX_TRAIN_LENGTH}; (hops or
 *     maxTtl) * trains * trainLength at most {@value #MAX_FRAMES}. A token-bucket bottleneck
 *     passes its burst at line rate: trains must be longer than skip + burst / frame size
 * @param skip head frames of each train left out of its estimate, 0..trainLength-2, or -1 for
 *     trainLength / 2 (0 for pairs)
 * @param packetSize UDP payload bytes per frame, 32..9000, sent with DF (above the path MTU the
 *     test fails)
 * @param gapNanos pause after each train, 1 us..10 s, or 0 for 3 times the train's answer span
 *     (1 ms..1 s)
 * @param waitNanos wait for a train's answers after its last frame, 1 ms..60 s
 * @param firstPort first destination port, 1..65535 (frames cycle over up to 4096 ports)
 */
public record HopCapacitySpec(
    String host,
    int hops,
    int maxTtl,
    int trains,
    int trainLength,
    int skip,
    int packetSize,
    long gapNanos,
    long waitNanos,
    int firstPort) implements ProbeSpec<HopCapacityResult> {

  public static final int MAX_HOPS = 64;
  public static final int MAX_TRAINS = 1000;
  public static final int MAX_TRAIN_LENGTH = 1000;
  public static final long MAX_FRAMES = 2_000_000L;

  public HopCapacitySpec {
    new RoundTripSpec(host, 1, 1, RoundTripSpec.MIN_SIZE, 0, 0, 0);
    range("hops", hops, 0, MAX_HOPS);
    range("maxTtl", maxTtl, 1, MAX_HOPS);
    range("trains", trains, 1, MAX_TRAINS);
    range("trainLength", trainLength, 2, MAX_TRAIN_LENGTH);
    range("skip", skip, -1, trainLength - 2);
    range("packetSize", packetSize, RoundTripSpec.MIN_SIZE, RoundTripSpec.MAX_SIZE);
    if (gapNanos != 0) {
      range("gapNanos", gapNanos, 1_000L, 10_000_000_000L);
    }
    range("waitNanos", waitNanos, 1_000_000L, RoundTripSpec.MAX_NANOS);
    range("firstPort", firstPort, 1, 65535);
    range("(hops or maxTtl) * trains * trainLength", (long) rows(hops, maxTtl) * trains * trainLength,
        2, MAX_FRAMES);
  }

  /**
   * Hop count from the hop list (up to 30), 30 trains of 64 frames of 1472 bytes per hop, half of
   * each train skipped, automatic pause, 1 s wait, port 33434.
   */
  public static HopCapacitySpec defaults(String host) {
    return new HopCapacitySpec(host, 0, 30, 30, 64, -1, 1472, 0, 1_000_000_000L, 33434);
  }

  /** The hops measured (TTL 1..hops) instead of finding them with the hop list. */
  public HopCapacitySpec withHops(int newHops) {
    return new HopCapacitySpec(host, newHops, maxTtl, trains, trainLength, skip, packetSize,
        gapNanos, waitNanos, firstPort);
  }

  public HopCapacitySpec withMaxTtl(int newMaxTtl) {
    return new HopCapacitySpec(host, hops, newMaxTtl, trains, trainLength, skip, packetSize,
        gapNanos, waitNanos, firstPort);
  }

  public HopCapacitySpec withTrains(int newTrains, int newTrainLength) {
    return new HopCapacitySpec(host, hops, maxTtl, newTrains, newTrainLength, skip, packetSize,
        gapNanos, waitNanos, firstPort);
  }

  public HopCapacitySpec withSkip(int newSkip) {
    return new HopCapacitySpec(host, hops, maxTtl, trains, trainLength, newSkip, packetSize,
        gapNanos, waitNanos, firstPort);
  }

  public HopCapacitySpec withPacketSize(int newSize) {
    return new HopCapacitySpec(host, hops, maxTtl, trains, trainLength, skip, newSize, gapNanos,
        waitNanos, firstPort);
  }

  public HopCapacitySpec withGapNanos(long newGap) {
    return new HopCapacitySpec(host, hops, maxTtl, trains, trainLength, skip, packetSize, newGap,
        waitNanos, firstPort);
  }

  public HopCapacitySpec withWaitNanos(long newWait) {
    return new HopCapacitySpec(host, hops, maxTtl, trains, trainLength, skip, packetSize,
        gapNanos, newWait, firstPort);
  }

  public HopCapacitySpec withFirstPort(int newPort) {
    return new HopCapacitySpec(host, hops, maxTtl, trains, trainLength, skip, packetSize,
        gapNanos, waitNanos, newPort);
  }

  /** Rows of per-train results the native call may fill: one per TTL that can be measured. */
  int rows() {
    return rows(hops, maxTtl);
  }

  private static int rows(int hops, int maxTtl) {
    return hops > 0 ? hops : maxTtl;
  }

  @Override
  public String kind() {
    return "hopcap";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("hops", hops).i64("maxTtl", maxTtl).i64("trains", trains)
        .i64("trainLen", trainLength).i64("skip", skip).i64("size", packetSize)
        .i64("gapNs", gapNanos).i64("waitMs", waitNanos / 1_000_000L).i64("port", firstPort);
  }

  @Override
  public HopCapacityResult read(NativeRecord result) {
    return HopCapacityResult.fromNative(result);
  }
}
