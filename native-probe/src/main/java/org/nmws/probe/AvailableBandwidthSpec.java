package org.nmws.probe;

import static org.nmws.probe.RoundTripSpec.range;

/**
 * Parameters of an available-bandwidth test (path.bandwidth.available) by a rate scan: UDP
 * streams at rising offered rates (UDP payload Mbit/s) from {@code minMbps} by {@code stepMbps}
 * up to {@code maxMbps}, stopping at the first congested step, then {@code refine} bisection
 * steps. Validated on construction: out-of-range values throw {@link IllegalArgumentException}
 * naming the field and its range.
 *
 * @param host responder host name or IPv4/IPv6 literal
 * @param port responder control port, 1..65535
 * @param packetSize UDP payload bytes per frame, 32..9000
 * @param minMbps first offered rate, 0.1..maxMbps, or 0 for stepMbps
 * @param maxMbps highest offered rate, 0.1..100000
 * @param stepMbps coarse step, up to maxMbps, or 0 for maxMbps / 10; at most 64 steps in all
 * @param refine bisection steps after the coarse scan, 0..20
 * @param stepNanos sending time of each step, 10 ms..10 s
 * @param pauseNanos pause between steps (lets queues drain), 0..10 s (0 = 200 ms)
 * @param lossPercent a step losing more is congested, 0..100 (0 = 1 %)
 * @param rateTolerance a step whose received rate falls this fraction below the sent rate is
 *     congested, 0..0.5 (0 = 0.03)
 * @param delayThresholdNanos a step whose one-way delay grows by more (median of the last
 *     quarter minus the first) is congested, 0..10 s (0 = 1 ms)
 * @param timeoutNanos wait after each step's last frame, 0..60 s (0 = 500 ms)
 * @param ttl outgoing IP TTL / hop limit, 1..255, or 0 for the system default
 */
public record AvailableBandwidthSpec(
    String host,
    int port,
    int packetSize,
    double minMbps,
    double maxMbps,
    double stepMbps,
    int refine,
    long stepNanos,
    long pauseNanos,
    double lossPercent,
    double rateTolerance,
    long delayThresholdNanos,
    long timeoutNanos,
    int ttl) implements ProbeSpec<AvailableBandwidthResult> {

  public static final int MAX_STEPS = 64;

  public AvailableBandwidthSpec {
    new RoundTripSpec(host, port, 1, packetSize, 0, timeoutNanos, ttl);
    between("maxMbps", maxMbps, 0.1, 100_000);
    if (minMbps != 0) {
      between("minMbps", minMbps, 0.1, maxMbps);
    }
    between("stepMbps", stepMbps, 0, maxMbps);
    range("refine", refine, 0, 20);
    range("stepNanos", stepNanos, 10_000_000L, 10_000_000_000L);
    range("pauseNanos", pauseNanos, 0, 10_000_000_000L);
    between("lossPercent", lossPercent, 0, 100);
    between("rateTolerance", rateTolerance, 0, 0.5);
    range("delayThresholdNanos", delayThresholdNanos, 0, 10_000_000_000L);
    double step = stepMbps > 0 ? stepMbps : maxMbps / 10;
    double first = minMbps > 0 ? minMbps : step;
    long coarse = (long) Math.floor((maxMbps - first) / step + 1e-9) + 1;
    if (coarse + refine > MAX_STEPS) {
      throw new IllegalArgumentException("coarse steps (" + coarse + ") + refine (" + refine
          + ") must be at most " + MAX_STEPS);
    }
  }

  /**
   * Port 8700, 1472-byte frames, maxMbps / 10 steps from maxMbps / 10, 4 refinements, 500 ms per
   * step, 200 ms pauses, default thresholds (1 % loss, 3 % rate, 1 ms delay growth).
   */
  public static AvailableBandwidthSpec defaults(String host, double maxMbps) {
    return new AvailableBandwidthSpec(host, RoundTripSpec.DEFAULT_PORT, 1472, 0, maxMbps, 0, 4,
        500_000_000L, 200_000_000L, 0, 0, 0, 500_000_000L, 0);
  }

  public AvailableBandwidthSpec withPort(int newPort) {
    return new AvailableBandwidthSpec(host, newPort, packetSize, minMbps, maxMbps, stepMbps,
        refine, stepNanos, pauseNanos, lossPercent, rateTolerance, delayThresholdNanos,
        timeoutNanos, ttl);
  }

  public AvailableBandwidthSpec withRates(double newMin, double newMax, double newStep) {
    return new AvailableBandwidthSpec(host, port, packetSize, newMin, newMax, newStep, refine,
        stepNanos, pauseNanos, lossPercent, rateTolerance, delayThresholdNanos, timeoutNanos,
        ttl);
  }

  public AvailableBandwidthSpec withRefine(int newRefine) {
    return new AvailableBandwidthSpec(host, port, packetSize, minMbps, maxMbps, stepMbps,
        newRefine, stepNanos, pauseNanos, lossPercent, rateTolerance, delayThresholdNanos,
        timeoutNanos, ttl);
  }

  public AvailableBandwidthSpec withTiming(long newStepNanos, long newPauseNanos,
      long newTimeoutNanos) {
    return new AvailableBandwidthSpec(host, port, packetSize, minMbps, maxMbps, stepMbps, refine,
        newStepNanos, newPauseNanos, lossPercent, rateTolerance, delayThresholdNanos,
        newTimeoutNanos, ttl);
  }

  public AvailableBandwidthSpec withThresholds(double newLossPercent, double newRateTolerance,
      long newDelayThresholdNanos) {
    return new AvailableBandwidthSpec(host, port, packetSize, minMbps, maxMbps, stepMbps, refine,
        stepNanos, pauseNanos, newLossPercent, newRateTolerance, newDelayThresholdNanos,
        timeoutNanos, ttl);
  }

  private static void between(String field, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
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
    return "avail";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port).i64("size", packetSize).f64("minMbps", minMbps)
        .f64("maxMbps", maxMbps).f64("stepMbps", stepMbps).i64("refine", refine)
        .i64("stepNs", stepNanos).i64("pauseNs", pauseNanos).f64("lossPercent", lossPercent)
        .f64("rateTolerance", rateTolerance).i64("delayThresholdNs", delayThresholdNanos)
        .i64("timeoutNs", timeoutNanos).i64("ttl", ttl);
  }

  @Override
  public AvailableBandwidthResult read(NativeRecord result) {
    return AvailableBandwidthResult.fromNative(result);
  }
}
