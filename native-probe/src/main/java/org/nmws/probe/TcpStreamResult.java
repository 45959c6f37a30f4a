package org.nmws.probe;

import static org.nmws.probe.Probe.TS_D_LATE_MAX_MS;
import static org.nmws.probe.Probe.TS_D_LATE_MEDIAN_MS;
import static org.nmws.probe.Probe.TS_D_LATE_MIN_MS;
import static org.nmws.probe.Probe.TS_D_LATE_P99_MS;
import static org.nmws.probe.Probe.TS_D_RECEIVER_S;
import static org.nmws.probe.Probe.TS_D_RECV_MBPS;
import static org.nmws.probe.Probe.TS_D_SENDER_S;
import static org.nmws.probe.Probe.TS_D_SEND_MBPS;
import static org.nmws.probe.Probe.TS_L_BINS;
import static org.nmws.probe.Probe.TS_L_BIN_NS;
import static org.nmws.probe.Probe.TS_L_BYTES_RECEIVED;
import static org.nmws.probe.Probe.TS_L_BYTES_SENT;
import static org.nmws.probe.Probe.TS_L_CANCELLED;
import static org.nmws.probe.Probe.TS_L_END_EPOCH;
import static org.nmws.probe.Probe.TS_L_MSG_SIZE;
import static org.nmws.probe.Probe.TS_L_RECORDS_OVER;
import static org.nmws.probe.Probe.TS_L_REFUSED;
import static org.nmws.probe.Probe.TS_L_REMOTE_PORT;
import static org.nmws.probe.Probe.TS_L_RETRANS;
import static org.nmws.probe.Probe.TS_L_SERIES_START;
import static org.nmws.probe.Probe.TS_L_START_EPOCH;
import static org.nmws.probe.Probe.TS_L_STREAMS;
import static org.nmws.probe.Probe.TS_M;
import static org.nmws.probe.Probe.TS_PD;
import static org.nmws.probe.Probe.TS_PL;
import static org.nmws.probe.Probe.TS_S;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of a TCP throughput test. {@link #throughputMbps()} is the receiver's figure:
 * bytes received * 8 / (last byte - first byte arrival) over all streams.
 *
 * @param streams streams used
 * @param messageSize bytes per message
 * @param bytesSent bytes handed to the kernel, all streams
 * @param bytesReceived bytes the responder read, all streams
 * @param senderSeconds first send until every byte was acknowledged
 * @param receiverSeconds responder's first to last byte
 * @param sendMbps bytesSent * 8 / senderSeconds, Mbit/s
 * @param throughputMbps bytesReceived * 8 / receiverSeconds, Mbit/s
 * @param totalRetransmits TCP segments retransmitted, all streams
 * @param perStream one entry per stream
 * @param series bytes the responder read per interval per stream
 * @param tcpInfo TCP_INFO samples of the sender's sockets
 * @param lateness constant-bit-rate message lateness (empty arrays otherwise)
 * @param refusedConnections data connections the responder refused during the session
 * @param startEpochNanos wall clock at the start
 * @param endEpochNanos wall clock at the end
 * @param localAddress sender address
 * @param remoteAddress responder address
 * @param remotePort responder control port
 * @param cancelled whether the test was cancelled before its end
 */
public record TcpStreamResult(
    int streams,
    int messageSize,
    long bytesSent,
    long bytesReceived,
    double senderSeconds,
    double receiverSeconds,
    double sendMbps,
    double throughputMbps,
    int totalRetransmits,
    List<PerStream> perStream,
    TimeSeries series,
    TcpInfoSamples tcpInfo,
    Lateness lateness,
    int refusedConnections,
    long startEpochNanos,
    long endEpochNanos,
    String localAddress,
    String remoteAddress,
    int remotePort,
    boolean cancelled) {

  public TcpStreamResult {
    perStream = List.copyOf(perStream);
  }

  /** One stream's figures. Rates in Mbit/s. */
  public record PerStream(
      long bytesSent,
      long bytesReceived,
      long messagesSent,
      long messagesReceived,
      double sendMbps,
      double receiveMbps,
      long firstArrivalEpochNanos,
      long lastArrivalEpochNanos,
      int totalRetransmits,
      int finalSrttMicros) {}

  /**
   * Bytes the responder read per bin of {@code binNanos}, from {@code startEpochNanos} (its first
   * byte); bytes after the last bin are counted in the last bin.
   *
   * @param bytes stream-major: stream s, bin b at {@code s * bins + b}
   */
  public record TimeSeries(long startEpochNanos, long binNanos, int bins, long[] bytes) {

    public long bytes(int stream, int bin) {
      return bytes[stream * bins + bin];
    }

    /** Mbit/s of one stream in one bin. */
    public double mbps(int stream, int bin) {
      return bytes(stream, bin) * 8e3 / binNanos;
    }

    /** Mbit/s of all streams together in one bin. */
    public double totalMbps(int bin) {
      long sum = 0;
      for (int s = 0; s < bytes.length / Math.max(1, bins); s++) {
        sum += bytes(s, bin);
      }
      return sum * 8e3 / binNanos;
    }
  }

  /**
   * TCP_INFO samples of the sender's sockets, in time order; entry i of every array is one
   * sample. Rates are bytes per second as the kernel gives them.
   */
  public record TcpInfoSamples(
      long[] offsetNanos,
      int[] stream,
      int[] cwndSegments,
      int[] mssBytes,
      int[] srttMicros,
      int[] rttvarMicros,
      int[] retransmits,
      int[] totalRetrans,
      long[] pacingRateBytesPerSecond,
      long[] deliveryRateBytesPerSecond,
      long[] bytesAcked) {

    public int size() {
      return offsetNanos.length;
    }
  }

  /**
   * Constant-bit-rate lateness: per message received, its schedule and the responder's time at its
   * last byte (lateness = arrival - schedule; includes the one-way delay and needs a shared
   * clock). Summary in ms; NaN without CBR.
   */
  public record Lateness(
      double minMs,
      double medianMs,
      double p99Ms,
      double maxMs,
      int[] stream,
      int[] seq,
      long[] scheduledEpochNanos,
      long[] arrivalEpochNanos,
      long[] latenessNanos,
      long recordsNotKept) {

    public int size() {
      return seq.length;
    }
  }

  static TcpStreamResult fromNative(long[] l, double[] d, long[] pl, double[] pd, long[] series,
      long[] samples, long[] messages, String[] addrs) {
    int n = (int) l[TS_L_STREAMS];
    List<PerStream> per = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int a = i * TS_PL;
      int b = i * TS_PD;
      per.add(new PerStream(pl[a + Probe.TS_PL_BYTES_SENT], pl[a + Probe.TS_PL_BYTES_RECEIVED],
          pl[a + Probe.TS_PL_MSGS_SENT], pl[a + Probe.TS_PL_MSGS_RECEIVED],
          pd[b + Probe.TS_PD_SEND_MBPS], pd[b + Probe.TS_PD_RECV_MBPS],
          pl[a + Probe.TS_PL_FIRST_ARRIVAL], pl[a + Probe.TS_PL_LAST_ARRIVAL],
          (int) pl[a + Probe.TS_PL_RETRANS], (int) pl[a + Probe.TS_PL_SRTT_US]));
    }
    int ns = samples.length / TS_S;
    long[] t = new long[ns];
    int[] st = new int[ns];
    int[] cwnd = new int[ns];
    int[] mss = new int[ns];
    int[] srtt = new int[ns];
    int[] rttvar = new int[ns];
    int[] rtx = new int[ns];
    int[] total = new int[ns];
    long[] pacing = new long[ns];
    long[] delivery = new long[ns];
    long[] acked = new long[ns];
    for (int i = 0; i < ns; i++) {
      int o = i * TS_S;
      t[i] = samples[o + Probe.TS_S_T_NS];
      st[i] = (int) samples[o + Probe.TS_S_STREAM];
      cwnd[i] = (int) samples[o + Probe.TS_S_CWND];
      mss[i] = (int) samples[o + Probe.TS_S_MSS];
      srtt[i] = (int) samples[o + Probe.TS_S_SRTT_US];
      rttvar[i] = (int) samples[o + Probe.TS_S_RTTVAR_US];
      rtx[i] = (int) samples[o + Probe.TS_S_RETRANSMITS];
      total[i] = (int) samples[o + Probe.TS_S_TOTAL_RETRANS];
      pacing[i] = samples[o + Probe.TS_S_PACING];
      delivery[i] = samples[o + Probe.TS_S_DELIVERY];
      acked[i] = samples[o + Probe.TS_S_ACKED];
    }
    int nm = messages.length / TS_M;
    int[] ms = new int[nm];
    int[] mq = new int[nm];
    long[] sched = new long[nm];
    long[] arr = new long[nm];
    long[] late = new long[nm];
    for (int i = 0; i < nm; i++) {
      int o = i * TS_M;
      ms[i] = (int) messages[o + Probe.TS_M_STREAM];
      mq[i] = (int) messages[o + Probe.TS_M_SEQ];
      sched[i] = messages[o + Probe.TS_M_SCHED];
      arr[i] = messages[o + Probe.TS_M_ARRIVAL];
      late[i] = messages[o + Probe.TS_M_LATE];
    }
    return new TcpStreamResult(n, (int) l[TS_L_MSG_SIZE], l[TS_L_BYTES_SENT],
        l[TS_L_BYTES_RECEIVED], d[TS_D_SENDER_S], d[TS_D_RECEIVER_S], d[TS_D_SEND_MBPS],
        d[TS_D_RECV_MBPS], (int) l[TS_L_RETRANS], per,
        new TimeSeries(l[TS_L_SERIES_START], l[TS_L_BIN_NS], (int) l[TS_L_BINS], series),
        new TcpInfoSamples(t, st, cwnd, mss, srtt, rttvar, rtx, total, pacing, delivery, acked),
        new Lateness(d[TS_D_LATE_MIN_MS], d[TS_D_LATE_MEDIAN_MS], d[TS_D_LATE_P99_MS],
            d[TS_D_LATE_MAX_MS], ms, mq, sched, arr, late, l[TS_L_RECORDS_OVER]),
        (int) l[TS_L_REFUSED], l[TS_L_START_EPOCH], l[TS_L_END_EPOCH], addrs[0], addrs[1],
        (int) l[TS_L_REMOTE_PORT], l[TS_L_CANCELLED] != 0);
  }

  @Override
  public String toString() {
    return String.format(
        "TcpStreamResult[%s -> %s:%d streams=%d msg=%d sent=%d received=%d throughput %.1f Mbit/s"
            + " (sender %.1f) retrans=%d samples=%d cbr messages=%d late ms median/p99/max="
            + "%.3f/%.3f/%.3f%s]",
        localAddress, remoteAddress, remotePort, streams, messageSize, bytesSent, bytesReceived,
        throughputMbps, sendMbps, totalRetransmits, tcpInfo.size(), lateness.size(),
        lateness.medianMs(), lateness.p99Ms(), lateness.maxMs(), cancelled ? " cancelled" : "");
  }
}
