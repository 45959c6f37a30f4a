package org.nmws.probe;

/**
 * Outcome of a UDP stream test. Figures that need more data than arrived are {@link Double#NaN}.
 * One-way delays compare the receiver's kernel receive timestamp with the sender's wall clock
 * carried in each frame: exact only when both hosts share (or tightly synchronise) a clock.
 *
 * <p>Rates: "user" counts UDP payload bits; "wire" adds, per frame, UDP 8 + IP 20 (IPv6 40) +
 * Ethernet header 14 + FCS 4 + preamble 8 + inter-frame gap 12 bytes ({@link
 * Receiver#wireOverheadBytes()}). Receiver rate = (received - 1) * size * 8 / (last - first
 * arrival).
 *
 * <p>Per-frame arrays have {@link #requested()} entries indexed by sequence number; accessors
 * return copies. {@link #timeSequence()} gives the arrival time relative to the first arrival with
 * -1 for lost frames (UDPmon's time-sequence plot).
 */
public record UdpStreamResult(
    int requested,
    int sent,
    int received,
    int lost,
    int duplicates,
    double lossPercent,
    Sender sender,
    Receiver receiver,
    Reordering reordering,
    OneWayDelay delay,
    Histogram interArrival,
    LossPattern lossPattern,
    LossOnset lossOnset,
    Hosts hosts,
    Clocks clocks,
    long startEpochNanos,
    long endEpochNanos,
    String localAddress,
    String remoteAddress,
    int remotePort,
    int[] seq,
    long[] sendEpochNanos,
    long[] arrivalEpochNanos,
    long[] owdNanos,
    int[] bytes,
    boolean cancelled) {

  /** What the sender achieved (monotonic clock). */
  public record Sender(
      long firstSendEpochNanos,
      long lastSendEpochNanos,
      double spacingNanos,
      double userMbps,
      double wireMbps) {}

  /** What the receiver saw (kernel receive timestamps). */
  public record Receiver(
      long firstArrivalEpochNanos,
      long lastArrivalEpochNanos,
      double userMbps,
      double wireMbps,
      int wireOverheadBytes) {}

  /**
   * RFC 4737 reordering over first arrivals: a frame is reordered when its sequence number is
   * below the next expected one; extent is in arrival positions; {@code nReorderingRatio[n-1]} is
   * the n-reordering ratio for n = 1, 2, 3.
   */
  public record Reordering(int reordered, double ratio, int maxExtent, double[] nReorderingRatio) {
    @Override
    public double[] nReorderingRatio() {
      return nReorderingRatio.clone();
    }
  }

  /**
   * One-way delay statistics (type-7 quantiles) over first arrivals; jitter = p95 - median; mean
   * |IPDV| per RFC 3393 over consecutive sequence numbers that both arrived.
   */
  public record OneWayDelay(
      double minMs,
      double medianMs,
      double meanMs,
      double p95Ms,
      double p99Ms,
      double maxMs,
      double jitterMs,
      double meanAbsIpdvMs,
      int ipdvPairs) {}

  /** Histogram of times between consecutive arrivals. */
  public record Histogram(
      double startNanos,
      double binWidthNanos,
      long[] counts,
      long under,
      long over,
      double minNanos,
      double meanNanos,
      double maxNanos) {
    @Override
    public long[] counts() {
      return counts.clone();
    }
  }

  /**
   * Gaps (in frames) between consecutive losses, fitted with an exponential distribution by
   * maximum likelihood; {@code ksDistance} is the Kolmogorov-Smirnov distance of the fit (NaN with
   * fewer than two gaps).
   */
  public record LossPattern(
      int intervals, double meanIntervalFrames, double exponentialRate, double ksDistance) {}

  /**
   * The first loss and the bottleneck it reveals: receive rates before and after it, and the queue
   * at that moment, estimated twice — frames sent before the first lost one minus frames delivered
   * meanwhile, and queueing delay of the last frame before the loss times the post-loss rate — in
   * bytes as a queue holds them (payload + UDP + IP + Ethernet header). {@code firstLossSeq} is -1
   * without loss.
   */
  public record LossOnset(
      long firstLossSeq,
      double rateBeforeMbps,
      double rateAfterMbps,
      double bufferFrames,
      double bufferBytes,
      double queueDelayMs,
      double bufferBytesByDelay) {}

  /**
   * Host load during the test: busy CPU share (all CPUs, /proc/stat), interrupt count deltas, and
   * on the receiver the UDP datagrams delivered and dropped at full socket buffers (its network
   * namespace's /proc/net/snmp). {@code networkLost} = lost minus receiver socket drops: loss not
   * explained by the receiving host.
   */
  public record Hosts(
      double senderCpuPercent,
      double receiverCpuPercent,
      long senderInterrupts,
      long receiverInterrupts,
      long receiverUdpDatagrams,
      long receiverSocketDrops,
      int networkLost,
      long receiverInvalid,
      long receiverRecordsOverflow) {}

  /**
   * The clocks the one-way delays rest on: each end's reference ("ptp:&lt;grandmaster&gt;" while
   * a ptp4l measures it, "utc" while the kernel says NTP keeps it, "none") and its error bound
   * against it, and the uncertainty of every one-way delay of this test: both errors summed
   * against a grandmaster both ends follow, else against UTC. The receiver's part is NaN (and
   * its reference empty) from a responder that does not report its clock.
   */
  public record Clocks(
      String senderReference,
      double senderErrorMs,
      String receiverReference,
      double receiverErrorMs,
      double oneWayUncertaintyMs) {}

  @Override
  public int[] seq() {
    return seq.clone();
  }

  @Override
  public long[] sendEpochNanos() {
    return sendEpochNanos.clone();
  }

  @Override
  public long[] arrivalEpochNanos() {
    return arrivalEpochNanos.clone();
  }

  @Override
  public long[] owdNanos() {
    return owdNanos.clone();
  }

  @Override
  public int[] bytes() {
    return bytes.clone();
  }

  /** Arrival time of each frame relative to the first arrival, -1 for lost frames. */
  public long[] timeSequence() {
    long[] t = new long[arrivalEpochNanos.length];
    long first = receiver.firstArrivalEpochNanos();
    for (int i = 0; i < t.length; i++) {
      t[i] = arrivalEpochNanos[i] == 0 ? -1 : arrivalEpochNanos[i] - first;
    }
    return t;
  }

  @Override
  public String toString() {
    return String.format(
        "UdpStreamResult[%s -> %s:%d sent=%d received=%d lost=%d (%.3f%%) dup=%d reordered=%d"
            + " send %.1f Mbit/s (spacing %.0f ns) recv %.1f Mbit/s (wire %.1f) owd ms"
            + " min/median/p99=%.4f/%.4f/%.4f jitter %.4f socket drops %d%s]",
        localAddress, remoteAddress, remotePort, sent, received, lost, lossPercent, duplicates,
        reordering.reordered(), sender.userMbps(), sender.spacingNanos(), receiver.userMbps(),
        receiver.wireMbps(), delay.minMs(), delay.medianMs(), delay.p99Ms(), delay.jitterMs(),
        hosts.receiverSocketDrops(), cancelled ? " cancelled" : "");
  }

  /** Reads the engine's packed "stream" result. */
  static UdpStreamResult fromNative(NativeRecord r) {
    return new UdpStreamResult(r.i32("requested"), r.i32("sent"), r.i32("received"),
        r.i32("lost"), r.i32("duplicates"), r.f64("lossPercent"),
        new Sender(r.i64("firstSendEpochNanos"), r.i64("lastSendEpochNanos"),
            r.f64("sendSpacingNs"), r.f64("sendUserMbps"), r.f64("sendWireMbps")),
        new Receiver(r.i64("firstArrivalEpochNanos"), r.i64("lastArrivalEpochNanos"),
            r.f64("recvUserMbps"), r.f64("recvWireMbps"), r.i32("wireOverheadBytes")),
        new Reordering(r.i32("reordered"), r.f64("reorderRatio"), r.i32("maxReorderExtent"),
            new double[] {r.f64("n1ReorderRatio"), r.f64("n2ReorderRatio"),
                r.f64("n3ReorderRatio")}),
        new OneWayDelay(r.f64("minOwdMs"), r.f64("medianOwdMs"), r.f64("meanOwdMs"),
            r.f64("p95OwdMs"), r.f64("p99OwdMs"), r.f64("maxOwdMs"), r.f64("jitterMs"),
            r.f64("meanAbsIpdvMs"), r.i32("ipdvPairs")),
        new Histogram(r.f64("histogramStartNs"), r.f64("histogramBinWidthNs"),
            r.longs("histogram"), r.i64("histogramUnder"), r.i64("histogramOver"),
            r.f64("minInterArrivalNs"), r.f64("meanInterArrivalNs"), r.f64("maxInterArrivalNs")),
        new LossPattern(r.i32("lossIntervals"), r.f64("lossIntervalMean"), r.f64("lossExpRate"),
            r.f64("lossExpKsDistance")),
        new LossOnset(r.i64("firstLossSeq"), r.f64("rateBeforeLossMbps"),
            r.f64("rateAfterLossMbps"), r.f64("bufferEstimateFrames"),
            r.f64("bufferEstimateBytes"), r.f64("queueDelayAtLossMs"),
            r.f64("bufferEstimateByDelayBytes")),
        new Hosts(r.f64("senderCpuPercent"), r.f64("receiverCpuPercent"),
            r.i64("senderInterrupts"), r.i64("receiverInterrupts"), r.i64("receiverUdpIn"),
            r.i64("receiverSocketDrops"), r.i32("networkLost"), r.i64("invalid"),
            r.i64("recordsOver")),
        new Clocks(r.str("senderClockReference"), r.f64("senderClockErrorMs"),
            r.str("receiverClockReference"), r.f64("receiverClockErrorMs"),
            r.f64("oneWayUncertaintyMs")),
        r.i64("startEpochNanos"), r.i64("endEpochNanos"), r.str("localAddress"),
        r.str("remoteAddress"), r.i32("remotePort"), r.ints("frames.seq"),
        r.longs("frames.sendEpochNanos"), r.longs("frames.arrivalEpochNanos"),
        r.longs("frames.owdNanos"), r.ints("frames.bytes"), r.bool("cancelled"));
  }
}
