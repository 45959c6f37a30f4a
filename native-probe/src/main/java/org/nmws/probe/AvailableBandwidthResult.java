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
}
