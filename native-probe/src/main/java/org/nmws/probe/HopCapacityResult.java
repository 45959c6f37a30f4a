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

    /** From the engine's name ("used", "sender-limited", "missing", "reordered", "not-sent"). */
    static TrainStatus named(String name) {
      return switch (name) {
        case "used" -> USED;
        case "sender-limited" -> SENDER_LIMITED;
        case "missing" -> MISSING;
        case "reordered" -> REORDERED;
        default -> NOT_SENT;
      };
    }
  }

  /** Reads the engine's packed "hopcap" result (train i of hop t at t * trains + i). */
  static HopCapacityResult fromNative(NativeRecord r) {
    String[] cols = {"hops.ttl", "hops.address", "hops.destination", "hops.otherAddresses",
        "hops.frameMbps", "hops.userMbps", "hops.wireMbps", "hops.modeFrameMbps", "hops.p10Mbps",
        "hops.p25Mbps", "hops.p75Mbps", "hops.p90Mbps", "hops.iqrMbps", "hops.headFrameMbps",
        "hops.lowerBound", "hops.endsOnly", "hops.trainsSent", "hops.trainsUsed", "hops.missing",
        "hops.reordered", "hops.senderLimited", "hops.probesSent", "hops.replies",
        "hops.kernelStamped", "hops.trainsUserStamped"};
    int n = r.rows(cols);
    int trains = r.i32("trains");
    double[] mbps = r.doubles("hops.perTrain.frameMbps");
    String[] st = r.strings("hops.perTrain.status");
    if (trains < 0 || mbps.length != (long) n * trains || st.length != mbps.length) {
      throw NativeRecord.malformed("engine result hops.perTrain has " + mbps.length + " rates and "
          + st.length + " statuses, not " + n + " hops * " + trains + " trains");
    }
    int[] ttl = r.ints("hops.ttl");
    String[] addr = r.strings("hops.address");
    int[] dest = r.ints("hops.destination");
    int[] other = r.ints("hops.otherAddresses");
    double[] user = r.doubles("hops.userMbps");
    double[] frame = r.doubles("hops.frameMbps");
    double[] wire = r.doubles("hops.wireMbps");
    double[] mode = r.doubles("hops.modeFrameMbps");
    double[] p10 = r.doubles("hops.p10Mbps");
    double[] p25 = r.doubles("hops.p25Mbps");
    double[] p75 = r.doubles("hops.p75Mbps");
    double[] p90 = r.doubles("hops.p90Mbps");
    double[] iqr = r.doubles("hops.iqrMbps");
    double[] head = r.doubles("hops.headFrameMbps");
    int[] lower = r.ints("hops.lowerBound");
    int[] ends = r.ints("hops.endsOnly");
    int[] sent = r.ints("hops.trainsSent");
    int[] used = r.ints("hops.trainsUsed");
    int[] missing = r.ints("hops.missing");
    int[] reordered = r.ints("hops.reordered");
    int[] senderLimited = r.ints("hops.senderLimited");
    int[] probes = r.ints("hops.probesSent");
    int[] replies = r.ints("hops.replies");
    int[] kernel = r.ints("hops.kernelStamped");
    int[] userStamped = r.ints("hops.trainsUserStamped");
    List<HopEstimate> hops = new java.util.ArrayList<>(n);
    for (int t = 0; t < n; t++) {
      List<Double> rates = new java.util.ArrayList<>(trains);
      List<TrainStatus> status = new java.util.ArrayList<>(trains);
      for (int i = 0; i < trains; i++) {
        rates.add(mbps[t * trains + i]);
        status.add(TrainStatus.named(st[t * trains + i]));
      }
      hops.add(new HopEstimate(ttl[t], addr[t].isEmpty() ? Optional.empty() : Optional.of(addr[t]),
          dest[t] != 0, other[t], new Estimate(user[t], frame[t], wire[t]), mode[t],
          new Spread(p10[t], p25[t], p75[t], p90[t], iqr[t]), head[t], lower[t] != 0,
          ends[t] != 0, new Trains(sent[t], used[t], missing[t], reordered[t], senderLimited[t]),
          new Answers(probes[t], replies[t], kernel[t], userStamped[t]), rates, status));
    }
    return new HopCapacityResult(hops, r.bool("discovered"), r.bool("reached"),
        r.i32("hopCount"), r.str("destination"), trains, r.i32("trainLength"), r.i32("skip"),
        r.i32("packetSize"), r.i32("frameOverheadBytes"), r.i32("wireOverheadBytes"),
        r.i64("startEpochNanos"), r.i64("endEpochNanos"), r.bool("cancelled"));
  }
}
