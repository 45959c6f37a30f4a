package org.nmws.probe;

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
    String congestionControl,
    boolean cancelled) {

  public TcpStreamResult {
    perStream = List.copyOf(perStream);
  }

  /**
   * One stream's figures. Rates in Mbit/s. From the sender's last TCP_INFO: the time it had data
   * in flight ({@code busyMicros}) and of that the time the receiver's window or the send buffer
   * held it back (the rest, the congestion window; all 0 on kernels before 4.10).
   */
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
      int finalSrttMicros,
      long busyMicros,
      long rwndLimitedMicros,
      long sndbufLimitedMicros) {}

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

  /**
   * Reads the engine's packed "tcp" result: tables "perStream.*", "tcpInfo.*" and "messages.*",
   * and the receiver series "seriesBytes" (stream s, bin b at s * bins + b).
   */
  static TcpStreamResult fromNative(NativeRecord r) {
    int n = r.rows("perStream.bytesSent", "perStream.bytesReceived", "perStream.messagesSent",
        "perStream.messagesReceived", "perStream.sendMbps", "perStream.throughputMbps",
        "perStream.firstArrivalEpochNanos", "perStream.lastArrivalEpochNanos",
        "perStream.retransmits", "perStream.srttUs", "perStream.busyUs", "perStream.rwndLimitedUs",
        "perStream.sndbufLimitedUs");
    long[] bs = r.longs("perStream.bytesSent");
    long[] br = r.longs("perStream.bytesReceived");
    long[] ms = r.longs("perStream.messagesSent");
    long[] mr = r.longs("perStream.messagesReceived");
    double[] sm = r.doubles("perStream.sendMbps");
    double[] tm = r.doubles("perStream.throughputMbps");
    long[] fa = r.longs("perStream.firstArrivalEpochNanos");
    long[] la = r.longs("perStream.lastArrivalEpochNanos");
    int[] rt = r.ints("perStream.retransmits");
    int[] srtt = r.ints("perStream.srttUs");
    long[] busy = r.longs("perStream.busyUs");
    long[] rwnd = r.longs("perStream.rwndLimitedUs");
    long[] sndbuf = r.longs("perStream.sndbufLimitedUs");
    List<PerStream> per = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      per.add(new PerStream(bs[i], br[i], ms[i], mr[i], sm[i], tm[i], fa[i], la[i], rt[i],
          srtt[i], busy[i], rwnd[i], sndbuf[i]));
    }
    int bins = r.i32("bins");
    long[] series = r.longs("seriesBytes");
    if (bins < 0 || series.length != (long) n * bins) {
      throw NativeRecord.malformed("engine result seriesBytes has " + series.length
          + " bins, not " + n + " streams * " + bins);
    }
    r.rows("tcpInfo.tNs", "tcpInfo.stream", "tcpInfo.cwnd", "tcpInfo.mss", "tcpInfo.srttUs",
        "tcpInfo.rttvarUs", "tcpInfo.retransmits", "tcpInfo.totalRetrans",
        "tcpInfo.pacingRateBytesPerSecond", "tcpInfo.deliveryRateBytesPerSecond",
        "tcpInfo.bytesAcked");
    r.rows("messages.stream", "messages.seq", "messages.scheduledEpochNanos",
        "messages.arrivalEpochNanos", "messages.latenessNs");
    return new TcpStreamResult(n, r.i32("messageSize"), r.i64("bytesSent"),
        r.i64("bytesReceived"), r.f64("senderSeconds"), r.f64("receiverSeconds"),
        r.f64("sendMbps"), r.f64("throughputMbps"), r.i32("totalRetransmits"), per,
        new TimeSeries(r.i64("seriesStartEpochNanos"), r.i64("binNanos"), bins, series),
        new TcpInfoSamples(r.longs("tcpInfo.tNs"), r.ints("tcpInfo.stream"),
            r.ints("tcpInfo.cwnd"), r.ints("tcpInfo.mss"), r.ints("tcpInfo.srttUs"),
            r.ints("tcpInfo.rttvarUs"), r.ints("tcpInfo.retransmits"),
            r.ints("tcpInfo.totalRetrans"), r.longs("tcpInfo.pacingRateBytesPerSecond"),
            r.longs("tcpInfo.deliveryRateBytesPerSecond"), r.longs("tcpInfo.bytesAcked")),
        new Lateness(r.f64("latenessMinMs"), r.f64("latenessMedianMs"), r.f64("latenessP99Ms"),
            r.f64("latenessMaxMs"), r.ints("messages.stream"), r.ints("messages.seq"),
            r.longs("messages.scheduledEpochNanos"), r.longs("messages.arrivalEpochNanos"),
            r.longs("messages.latenessNs"), r.i64("recordsOver")),
        r.i32("refusedConnections"), r.i64("startEpochNanos"), r.i64("endEpochNanos"),
        r.str("localAddress"), r.str("remoteAddress"), r.i32("remotePort"),
        r.str("congestionControl"), r.bool("cancelled"));
  }

  @Override
  public String toString() {
    return String.format(
        "TcpStreamResult[%s -> %s:%d %s streams=%d msg=%d sent=%d received=%d throughput %.1f Mbit/s"
            + " (sender %.1f) retrans=%d samples=%d cbr messages=%d late ms median/p99/max="
            + "%.3f/%.3f/%.3f%s]",
        localAddress, remoteAddress, remotePort, congestionControl, streams, messageSize, bytesSent, bytesReceived,
        throughputMbps, sendMbps, totalRetransmits, tcpInfo.size(), lateness.size(),
        lateness.medianMs(), lateness.p99Ms(), lateness.maxMs(), cancelled ? " cancelled" : "");
  }
}
