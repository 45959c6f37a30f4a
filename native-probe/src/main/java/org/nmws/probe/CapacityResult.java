package org.nmws.probe;

/**
 * Outcome of a path capacity test by packet-train dispersion. Each train's estimate is the
 * dispersion rate of its tail (the frames after {@link Trains#skip()}): (k - 1) * size * 8 /
 * (last - first arrival) over the k tail frames received, from the receiver's kernel timestamps.
 * Trains are discarded when fewer than half their tail arrived, when the tail arrived out of
 * order, or when the sender needed 80 % or more of the arrival span to send it (the sender, not
 * the path, set the dispersion). The estimate is the median over the trains kept; it is {@link
 * Double#NaN} when none was kept.
 *
 * <p>Levels: "user" counts UDP payload bits; "frame" adds UDP, IP and Ethernet headers ({@link
 * Trains#frameOverheadBytes()}, 42 bytes over IPv4), as queues and shapers such as tbf count;
 * "wire" adds FCS, preamble and inter-frame gap too ({@link Trains#wireOverheadBytes()}, 66 bytes
 * over IPv4), the Ethernet line rate. The spread is given at the user level.
 *
 * @param estimate the median at the three levels
 * @param spread quantiles (type 7) of the per-train user-level estimates
 * @param headUserMbps median dispersion rate of the skipped train heads (a token bucket's burst
 *     shows as a rate above the estimate)
 * @param trains geometry and accounting of the trains
 * @param trainUserMbps per train (all {@link Trains#trains()}), the tail's dispersion rate, NaN
 *     when not measurable
 * @param trainStatus per train, whether it was used or why it was discarded
 * @param trainReceived per train, frames received
 */
public record CapacityResult(
    Estimate estimate,
    Spread spread,
    double headUserMbps,
    Trains trains,
    double[] trainUserMbps,
    TrainStatus[] trainStatus,
    int[] trainReceived,
    long startEpochNanos,
    long endEpochNanos,
    String localAddress,
    String remoteAddress,
    int remotePort,
    boolean cancelled) {

  /** The capacity estimate (median over kept trains) in Mbit/s at three levels. */
  public record Estimate(double userMbps, double frameMbps, double wireMbps) {}

  /** Spread of the per-train user-level estimates, Mbit/s. */
  public record Spread(
      double p10Mbps, double p25Mbps, double p75Mbps, double p90Mbps, double iqrMbps) {}

  /** What was sent and how the trains were judged. */
  public record Trains(
      int trains,
      int trainsSent,
      int trainsUsed,
      int discardedLoss,
      int discardedReordered,
      int discardedSenderLimited,
      int trainLength,
      int packetSize,
      int skip,
      long gapNanos,
      double pilotSpanMs,
      int framesSent,
      int framesReceived,
      int frameOverheadBytes,
      int wireOverheadBytes) {}

  /** Whether a train's estimate was kept, and if not, why. */
  public enum TrainStatus {
    USED,
    LOSS,
    REORDERED,
    SENDER_LIMITED,
    NOT_SENT;

    /** From the engine's name ("used", "loss", "reordered", "sender-limited", "not-sent"). */
    static TrainStatus named(String name) {
      return switch (name) {
        case "used" -> USED;
        case "loss" -> LOSS;
        case "reordered" -> REORDERED;
        case "sender-limited" -> SENDER_LIMITED;
        default -> NOT_SENT;
      };
    }
  }

  public CapacityResult {
    trainUserMbps = trainUserMbps.clone();
    trainStatus = trainStatus.clone();
    trainReceived = trainReceived.clone();
  }

  @Override
  public double[] trainUserMbps() {
    return trainUserMbps.clone();
  }

  @Override
  public TrainStatus[] trainStatus() {
    return trainStatus.clone();
  }

  @Override
  public int[] trainReceived() {
    return trainReceived.clone();
  }

  /** Reads the engine's packed "capacity" result. */
  static CapacityResult fromNative(NativeRecord r) {
    int n = r.rows("perTrain.userMbps", "perTrain.received", "perTrain.status");
    String[] names = r.strings("perTrain.status");
    TrainStatus[] status = new TrainStatus[n];
    for (int i = 0; i < n; i++) {
      status[i] = TrainStatus.named(names[i]);
    }
    return new CapacityResult(
        new Estimate(r.f64("userMbps"), r.f64("frameMbps"), r.f64("wireMbps")),
        new Spread(r.f64("p10Mbps"), r.f64("p25Mbps"), r.f64("p75Mbps"), r.f64("p90Mbps"),
            r.f64("iqrMbps")),
        r.f64("headUserMbps"),
        new Trains(r.i32("trains"), r.i32("trainsSent"), r.i32("trainsUsed"),
            r.i32("discardedLoss"), r.i32("discardedReordered"), r.i32("discardedSenderLimited"),
            r.i32("trainLength"), r.i32("packetSize"), r.i32("skip"), r.i64("gapNanos"),
            r.f64("pilotSpanMs"), r.i32("framesSent"), r.i32("framesReceived"),
            r.i32("frameOverheadBytes"), r.i32("wireOverheadBytes")),
        r.doubles("perTrain.userMbps"), status, r.ints("perTrain.received"),
        r.i64("startEpochNanos"), r.i64("endEpochNanos"), r.str("localAddress"),
        r.str("remoteAddress"), r.i32("remotePort"), r.bool("cancelled"));
  }
}
