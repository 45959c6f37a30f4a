package org.nmws.probe;

import java.util.List;
import java.util.Optional;

/**
 * Outcome of a per-hop capacity test (Trace-Rate style). For each TTL the dispersion of the ICMP
 * answers to back-to-back trains gives the capacity of the path up to that hop (the narrowest
 * link so far). Each train's rate is taken over its tail (frames after {@link #skip()}): (n - 1)
 * * frame bits / (last - first answer) with kernel receive timestamps of the answers (or, for a
 * train whose answers lack them, the time they were read; see {@link HopEstimate#kernelStamped()}).
 * Trains with a missing or reordered answer in the tail are discarded; trains the sender itself
 * spread over 80 % or more of the answers' span are sender-limited. The estimate is the median
 * over the used trains, or over used and sender-limited ones (then {@link
 * HopEstimate#lowerBound()}) when the sender-limited ones are the majority. A router that
 * rate-limits its ICMP answers (its first 3 trains answered only at their head) is measured with
 * ends-only trains ({@link HopEstimate#endsOnly()}): only the first and last frame of the tail
 * expire there, the rest pass on, and up to 10 trains are paced to the router's budget.
 *
 * <p>Levels as {@link CapacityResult}: user (payload), frame (+ UDP, IP and Ethernet headers,
 * {@link #frameOverheadBytes()}: what queues and tbf count), wire (+ FCS, preamble, IFG). Spread,
 * mode and per-train rates are at the frame level.
 *
 * @param hops one entry per TTL measured, from 1 (a test cancelled during the hop list has none)
 * @param discovered whether the hop list ran first to find the hop count
 * @param reached whether the destination answered (ICMP port unreachable)
 * @param hopCount the destination's TTL, 0 if it was not reached
 * @param destination the resolved destination address
 * @param trains trains per hop
 * @param trainLength frames per train
 * @param skip head frames left out of each train's estimate
 * @param packetSize UDP payload bytes per frame
 * @param frameOverheadBytes bytes added per frame at the frame level (42 IPv4, 62 IPv6)
 * @param wireOverheadBytes bytes added per frame at the wire level (66 IPv4, 86 IPv6)
 * @param startEpochNanos wall clock at the start
 * @param endEpochNanos wall clock at the end
 * @param cancelled whether the test was cancelled (the hops then hold the trains so far)
 */
public record HopCapacityResult(
    List<HopEstimate> hops,
    boolean discovered,
    boolean reached,
    int hopCount,
    String destination,
    int trains,
    int trainLength,
    int skip,
    int packetSize,
    int frameOverheadBytes,
    int wireOverheadBytes,
    long startEpochNanos,
    long endEpochNanos,
    boolean cancelled) {

  public HopCapacityResult {
    hops = List.copyOf(hops);
  }

  /** The capacity up to one hop. */
  public record HopEstimate(
      int ttl,
      Optional<String> address,
      boolean destination,
      int otherAddresses,
      Estimate estimate,
      double modeFrameMbps,
      Spread spread,
      double headFrameMbps,
      boolean lowerBound,
      boolean endsOnly,
      Trains trains,
      Answers answers,
      List<Double> trainFrameMbps,
      List<TrainStatus> trainStatus) {

    public HopEstimate {
      trainFrameMbps = List.copyOf(trainFrameMbps);
      trainStatus = List.copyOf(trainStatus);
    }
  }

  /** The median over the trains counted, Mbit/s at three levels; NaN when none counts. */
  public record Estimate(double userMbps, double frameMbps, double wireMbps) {}

  /** Quantiles (type 7) and IQR of the counted trains' frame-level rates, Mbit/s. */
  public record Spread(
      double p10Mbps, double p25Mbps, double p75Mbps, double p90Mbps, double iqrMbps) {}

  /**
   * How one hop's trains were judged.
   *
   * @param sent trains sent completely
   * @param used trains in the estimate (including sender-limited ones for a lower bound)
   * @param missing trains with a tail answer missing (ICMP rate limits, loss)
   * @param reordered trains with tail answers out of order
   * @param senderLimited trains the sender spread as wide as their answers
   */
  public record Trains(int sent, int used, int missing, int reordered, int senderLimited) {}

  /**
   * The answers of one hop.
   *
   * @param probesSent frames sent to this TTL
   * @param replies ICMP answers matched to a frame
   * @param kernelStamped answers with a kernel receive timestamp
   * @param trainsUserStamped trains timed when their answers were read (no kernel stamp on all)
   */
  public record Answers(int probesSent, int replies, int kernelStamped, int trainsUserStamped) {}

  /** Whether a train counted, and if not, why (codes as the native engine's). */
  public enum TrainStatus {
    USED,
    SENDER_LIMITED,
    MISSING,
    REORDERED,
    NOT_SENT;

    static TrainStatus of(long code) {
      TrainStatus[] all = values();
      return code >= 0 && code < all.length ? all[(int) code] : NOT_SENT;
    }
  }
}
