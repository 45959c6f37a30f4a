package org.nmws.probe;

import java.util.List;

/**
 * Outcome of an available-bandwidth rate scan: the curve (one {@link Step} per UDP stream, in the
 * order run) and the estimate. All rates count UDP payload bits ("user" level) except {@link
 * #estimateWireMbps()}, which adds {@link #wireOverheadBytes()} per frame (66 over IPv4: UDP, IP,
 * Ethernet header, FCS, preamble and inter-frame gap).
 *
 * <p>The estimate is the middle of the bracket between the highest uncongested sent rate ({@link
 * #lowerMbps()}) and the lowest congested one ({@link #upperMbps()}); it is {@link Double#NaN}
 * unless both exist ({@link #bracketed()}). Without a congested step the available bandwidth is at
 * least {@code lowerMbps} (and {@code upperMbps} is NaN); when the first step was congested it is
 * below {@code upperMbps} (and {@code lowerMbps} is 0).
 */
public record AvailableBandwidthResult(
    List<Step> steps,
    double estimateMbps,
    double estimateWireMbps,
    double lowerMbps,
    double upperMbps,
    boolean bracketed,
    int packetSize,
    int wireOverheadBytes,
    long startEpochNanos,
    long endEpochNanos,
    String localAddress,
    String remoteAddress,
    int remotePort,
    boolean cancelled) {

  /**
   * One point of the curve.
   *
   * @param offeredMbps rate asked for
   * @param sentMbps rate the sender achieved
   * @param receivedMbps rate received (kernel timestamps)
   * @param lossPercent frames lost of those sent
   * @param owdMinMs smallest one-way delay
   * @param owdMedianMs median one-way delay
   * @param owdIncreaseMs median one-way delay of the last quarter of the received frames minus
   *     that of the first quarter: the one-way delay trend
   * @param owdSlopeMsPerSecond least-squares slope of one-way delay over send time
   * @param delayGrew congested: the delay increase exceeded the threshold
   * @param rateFellBehind congested: the received rate fell below the sent rate by more than the
   *     tolerance
   * @param lossExceeded congested: the loss exceeded the threshold
   * @param senderLimited the sender fell short of the offered rate by more than the tolerance
   * @param refinement whether this was a bisection step
   */
  public record Step(
      double offeredMbps,
      double sentMbps,
      double receivedMbps,
      double lossPercent,
      double owdMinMs,
      double owdMedianMs,
      double owdIncreaseMs,
      double owdSlopeMsPerSecond,
      int framesSent,
      int framesReceived,
      boolean delayGrew,
      boolean rateFellBehind,
      boolean lossExceeded,
      boolean senderLimited,
      boolean refinement) {

    /** Whether any congestion criterion held. */
    public boolean congested() {
      return delayGrew || rateFellBehind || lossExceeded;
    }
  }

  public AvailableBandwidthResult {
    steps = List.copyOf(steps);
  }

  /** Reads the engine's packed "avail" result. */
  static AvailableBandwidthResult fromNative(NativeRecord r) {
    int n = r.rows("steps.offeredMbps", "steps.sentMbps", "steps.receivedMbps",
        "steps.lossPercent", "steps.owdMinMs", "steps.owdMedianMs", "steps.owdIncreaseMs",
        "steps.owdSlopeMsPerS", "steps.framesSent", "steps.framesReceived", "steps.delay",
        "steps.rate", "steps.loss", "steps.senderLimited", "steps.refine");
    double[] offered = r.doubles("steps.offeredMbps");
    double[] sent = r.doubles("steps.sentMbps");
    double[] received = r.doubles("steps.receivedMbps");
    double[] loss = r.doubles("steps.lossPercent");
    double[] owdMin = r.doubles("steps.owdMinMs");
    double[] owdMedian = r.doubles("steps.owdMedianMs");
    double[] owdIncrease = r.doubles("steps.owdIncreaseMs");
    double[] owdSlope = r.doubles("steps.owdSlopeMsPerS");
    int[] framesSent = r.ints("steps.framesSent");
    int[] framesReceived = r.ints("steps.framesReceived");
    int[] delay = r.ints("steps.delay");
    int[] rate = r.ints("steps.rate");
    int[] lossFlag = r.ints("steps.loss");
    int[] sender = r.ints("steps.senderLimited");
    int[] refine = r.ints("steps.refine");
    List<Step> steps = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      steps.add(new Step(offered[i], sent[i], received[i], loss[i], owdMin[i], owdMedian[i],
          owdIncrease[i], owdSlope[i], framesSent[i], framesReceived[i], delay[i] != 0,
          rate[i] != 0, lossFlag[i] != 0, sender[i] != 0, refine[i] != 0));
    }
    return new AvailableBandwidthResult(steps, r.f64("estimateMbps"), r.f64("estimateWireMbps"),
        r.f64("lowerMbps"), r.f64("upperMbps"), r.bool("bracketed"), r.i32("packetSize"),
        r.i32("wireOverheadBytes"), r.i64("startEpochNanos"), r.i64("endEpochNanos"),
        r.str("localAddress"), r.str("remoteAddress"), r.i32("remotePort"), r.bool("cancelled"));
  }
}
