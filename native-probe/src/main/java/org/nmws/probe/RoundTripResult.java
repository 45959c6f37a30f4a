package org.nmws.probe;

/**
 * Outcome of a request-response latency test. RTT and IPD figures are milliseconds from the
 * monotonic clock and are {@link Double#NaN} when too few replies arrived (RTT needs one, IPD two).
 * IPD follows PingER: from consecutive received RTTs d = rtt[i] - rtt[i-1]; min/mean/max are of
 * |d|, the IQR is of the signed d. Per-frame arrays have {@link #requested()} entries, indexed by
 * sequence number; accessors return copies.
 *
 * @param lossPercent 100 * lost / sent
 * @param requested frames asked for
 * @param sent frames sent (fewer than requested only when cancelled)
 * @param received distinct frames answered
 * @param lost sent - received
 * @param duplicates replies for a frame already answered
 * @param outOfOrder replies arriving after a reply with a higher sequence number
 * @param startEpochNanos wall clock at the first send, ns since the epoch
 * @param endEpochNanos wall clock at the end of the test
 * @param localAddress local address of the test socket
 * @param remoteAddress responder address
 * @param remotePort responder control port
 * @param seq sequence numbers 0..requested-1
 * @param sendEpochNanos wall clock at each send, 0 if not sent
 * @param rttNanos round-trip time per frame, -1 if lost or not sent
 * @param bytes reply UDP payload bytes per frame, 0 if lost
 * @param ttl IP TTL / hop limit of each reply, -1 if lost
 * @param cancelled whether the test was cancelled through its {@link ProbeControl}
 * @param stalls received frames whose host part was 1 ms or more: a host preempted mid-round-trip
 * @param turnaroundKnown replies that carried the reflector's turnaround (a responder that predates
 *     it, or a frame under 36 bytes, carries none)
 * @param maxHostMs the largest host part of a received frame
 * @param p99PathRttMs 99th percentile of the RTT less its host part: the path's own share
 * @param hostNanos per frame, the host part of its RTT: the reflector's turnaround (from its
 *     kernel receive stamp to its send) plus this sender's send call when that was preempted (1 ms
 *     or more); -1 if lost or not sent
 */
public record RoundTripResult(
    double minRttMs,
    double meanRttMs,
    double medianRttMs,
    double maxRttMs,
    double p99RttMs,
    double minIpdMs,
    double meanIpdMs,
    double maxIpdMs,
    double iqrIpdMs,
    double lossPercent,
    int requested,
    int sent,
    int received,
    int lost,
    int duplicates,
    int outOfOrder,
    long startEpochNanos,
    long endEpochNanos,
    String localAddress,
    String remoteAddress,
    int remotePort,
    int[] seq,
    long[] sendEpochNanos,
    long[] rttNanos,
    int[] bytes,
    int[] ttl,
    boolean cancelled,
    int stalls,
    int turnaroundKnown,
    double maxHostMs,
    double p99PathRttMs,
    long[] hostNanos) {

  @Override
  public int[] seq() {
    return seq.clone();
  }

  @Override
  public long[] sendEpochNanos() {
    return sendEpochNanos.clone();
  }

  @Override
  public long[] rttNanos() {
    return rttNanos.clone();
  }

  @Override
  public int[] bytes() {
    return bytes.clone();
  }

  @Override
  public int[] ttl() {
    return ttl.clone();
  }

  @Override
  public long[] hostNanos() {
    return hostNanos.clone();
  }

  @Override
  public String toString() {
    return String.format(
        "RoundTripResult[%s -> %s:%d sent=%d received=%d lost=%d (%.3f%%) dup=%d ooo=%d"
            + " rtt ms min/mean/median/max=%.4f/%.4f/%.4f/%.4f ipd ms min/mean/max/iqr=%.4f/%.4f/%.4f/%.4f stalls=%d%s]",
        localAddress, remoteAddress, remotePort, sent, received, lost, lossPercent, duplicates,
        outOfOrder, minRttMs, meanRttMs, medianRttMs, maxRttMs, minIpdMs, meanIpdMs, maxIpdMs,
        iqrIpdMs, stalls, cancelled ? " cancelled" : "");
  }

  /** Reads the engine's packed "rr" result. */
  static RoundTripResult fromNative(NativeRecord r) {
    return new RoundTripResult(r.f64("minRttMs"), r.f64("meanRttMs"), r.f64("medianRttMs"),
        r.f64("maxRttMs"), r.f64("p99RttMs"), r.f64("minIpdMs"), r.f64("meanIpdMs"), r.f64("maxIpdMs"),
        r.f64("iqrIpdMs"), r.f64("lossPercent"), r.i32("requested"), r.i32("sent"),
        r.i32("received"), r.i32("lost"), r.i32("duplicates"), r.i32("outOfOrder"),
        r.i64("startEpochNanos"), r.i64("endEpochNanos"), r.str("localAddress"),
        r.str("remoteAddress"), r.i32("remotePort"), r.ints("frames.seq"),
        r.longs("frames.sendEpochNanos"), r.longs("frames.rttNanos"), r.ints("frames.bytes"),
        r.ints("frames.ttl"), r.bool("cancelled"), r.i32("stalls"), r.i32("turnaroundKnown"),
        r.f64("maxHostMs"), r.f64("p99PathRttMs"), r.longs("frames.hostNanos"));
  }
}
