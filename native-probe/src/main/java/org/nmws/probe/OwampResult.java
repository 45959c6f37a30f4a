package org.nmws.probe;

/**
 * Outcome of an OWAMP or TWAMP session. Delays are in milliseconds; figures that need more data
 * than arrived are {@link Double#NaN}. One-way delays compare two clocks: their uncertainty is
 * the sum of both ends' stated errors (the error estimates of RFC 4656 4.1.2).
 *
 * <p>OWAMP fills the one-way delay figures (owd*) from the receiver's records fetched back;
 * TWAMP fills the round trip (rtt*) and both one-way directions (forward*, backward*). The other
 * protocol's figures are NaN.
 *
 * <p>Per-packet arrays: OWAMP indexes by the records fetched (seq, send, arrival, owd, ttl);
 * TWAMP by sequence number (send, rtt, forward, backward, ttl); -1 marks a lost packet.
 */
public record OwampResult(boolean twamp, String mode, int requested, int sent, int skipped,
    int received, int lost, int duplicates, int reordered, int invalid, double lossPercent,
    double minOwdMs, double medianOwdMs, double meanOwdMs, double p95OwdMs, double p99OwdMs,
    double maxOwdMs, double minRttMs, double medianRttMs, double meanRttMs, double p99RttMs,
    double maxRttMs, double minForwardMs, double medianForwardMs, double maxForwardMs,
    double minBackwardMs, double medianBackwardMs, double maxBackwardMs, int forwardLost,
    double senderErrorMs, double remoteErrorMs, double oneWayUncertaintyMs,
    boolean remoteSynchronised, long startEpochNanos, long endEpochNanos, String localAddress,
    String remoteAddress, int remotePort, Frames frames, boolean cancelled) {

  /** Per packet: valueNanos is the one-way delay (OWAMP) or the round trip (TWAMP), -1 lost. */
  public record Frames(int[] seq, long[] sendEpochNanos, long[] valueNanos, long[] forwardNanos,
      long[] backwardNanos, int[] ttl) {
    public int size() {
      return sendEpochNanos.length;
    }
  }

  static OwampResult fromNative(NativeRecord r, boolean twamp) {
    double nan = Double.NaN;
    Frames frames;
    if (twamp) {
      long[] send = r.longs("frames.sendEpochNanos");
      int[] seq = new int[send.length];
      for (int i = 0; i < seq.length; i++) {
        seq[i] = i;
      }
      frames = new Frames(seq, send, r.longs("frames.rttNanos"), r.longs("frames.forwardNanos"),
          r.longs("frames.backwardNanos"), r.ints("frames.replyTtl"));
    } else {
      long[] send = r.longs("frames.sendEpochNanos");
      frames = new Frames(r.ints("frames.seq"), send, r.longs("frames.owdNanos"), new long[0],
          new long[0], r.ints("frames.ttl"));
    }
    return new OwampResult(twamp, r.str("mode"), r.i32("requested"), r.i32("sent"),
        r.i32("skipped"), r.i32("received"), r.i32("lost"), r.i32("duplicates"),
        twamp ? 0 : r.i32("reordered"), r.i32("invalid"), r.f64("lossPercent"),
        twamp ? nan : r.f64("minOwdMs"), twamp ? nan : r.f64("medianOwdMs"),
        twamp ? nan : r.f64("meanOwdMs"), twamp ? nan : r.f64("p95OwdMs"),
        twamp ? nan : r.f64("p99OwdMs"), twamp ? nan : r.f64("maxOwdMs"),
        twamp ? r.f64("minRttMs") : nan, twamp ? r.f64("medianRttMs") : nan,
        twamp ? r.f64("meanRttMs") : nan, twamp ? r.f64("p99RttMs") : nan,
        twamp ? r.f64("maxRttMs") : nan, twamp ? r.f64("minForwardMs") : nan,
        twamp ? r.f64("medianForwardMs") : nan, twamp ? r.f64("maxForwardMs") : nan,
        twamp ? r.f64("minBackwardMs") : nan, twamp ? r.f64("medianBackwardMs") : nan,
        twamp ? r.f64("maxBackwardMs") : nan, twamp ? r.i32("forwardLost") : 0,
        r.f64("senderErrorMs"), r.f64(twamp ? "reflectorErrorMs" : "receiverErrorMs"),
        r.f64("oneWayUncertaintyMs"),
        r.bool(twamp ? "reflectorSynchronised" : "receiverSynchronised"),
        r.i64("startEpochNanos"), r.i64("endEpochNanos"), r.str("localAddress"),
        r.str("remoteAddress"), r.i32("remotePort"), frames, r.bool("cancelled"));
  }
}
