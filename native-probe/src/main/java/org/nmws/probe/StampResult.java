package org.nmws.probe;

/**
 * Result of a STAMP / TWAMP-Light test. Round trips leave out the reflector's residence time;
 * one-way delays are differences of the two hosts' wall clocks, so each carries
 * {@link #oneWayUncertaintyMs()}, the sum of both ends' stated clock errors. Times in ms;
 * figures of no reflection are NaN.
 *
 * @param forwardLost packets lost on the way to the reflector, known from a stateful
 *     reflector's own count (0 from a stateless one); the rest of {@link #lost()} were lost on
 *     the way back or after the last reflection
 * @param reflectorSynchronised the reflector said its clock is synchronised to UTC
 * @param frames per packet: send time (T1), round trip, forward and backward one-way delay in
 *     ns (-1 round trip when lost), the TTL the reflector saw and the reflection's TTL here
 */
public record StampResult(int requested, int sent, int received, int lost, int duplicates,
    int invalid, double lossPercent, double minRttMs, double medianRttMs, double meanRttMs,
    double p99RttMs, double maxRttMs, double minForwardMs, double medianForwardMs,
    double maxForwardMs, double minBackwardMs, double medianBackwardMs, double maxBackwardMs,
    double senderErrorMs, double reflectorErrorMs, double oneWayUncertaintyMs,
    boolean reflectorSynchronised, boolean reflectorPtp, int forwardLost, int authFailed,
    long startEpochNanos,
    long endEpochNanos, String localAddress, String remoteAddress, Frames frames,
    boolean cancelled) {

  /** Per-packet columns, each {@code requested} long. */
  public record Frames(long[] sendEpochNanos, long[] rttNanos, long[] forwardNanos,
      long[] backwardNanos, int[] senderTtl, int[] replyTtl) {
    public int size() {
      return sendEpochNanos.length;
    }
  }

  static StampResult fromNative(NativeRecord r) {
    return new StampResult(r.i32("requested"), r.i32("sent"), r.i32("received"), r.i32("lost"),
        r.i32("duplicates"), r.i32("invalid"), r.f64("lossPercent"), r.f64("minRttMs"),
        r.f64("medianRttMs"), r.f64("meanRttMs"), r.f64("p99RttMs"), r.f64("maxRttMs"),
        r.f64("minForwardMs"), r.f64("medianForwardMs"), r.f64("maxForwardMs"),
        r.f64("minBackwardMs"), r.f64("medianBackwardMs"), r.f64("maxBackwardMs"),
        r.f64("senderErrorMs"), r.f64("reflectorErrorMs"), r.f64("oneWayUncertaintyMs"),
        r.bool("reflectorSynchronised"), r.bool("reflectorPtp"), r.i32("forwardLost"),
        r.i32("authFailed"),
        r.i64("startEpochNanos"), r.i64("endEpochNanos"), r.str("localAddress"),
        r.str("remoteAddress"),
        new Frames(r.longs("frames.sendEpochNanos"), r.longs("frames.rttNanos"),
            r.longs("frames.forwardNanos"), r.longs("frames.backwardNanos"),
            r.ints("frames.senderTtl"), r.ints("frames.replyTtl")),
        r.bool("cancelled"));
  }
}
