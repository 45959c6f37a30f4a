package org.nmws.probe;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Entry point to the native probe engine. Each test validates its spec in Java, then makes one
 * blocking native call that returns all per-frame data in arrays. Tests may run concurrently from
 * different threads (each has its own sockets), though a responder admits one session at a time.
 */
public final class Probe {

  /** Bumped whenever the native call layout below changes; checked against the library. */
  static final int ABI = 5;

  // Layout of the summary arrays passed to nRoundTrip. javac -h exports these constants into the
  // generated header, which the C side includes, so both sides share one definition.
  static final int RR_L_REQUESTED = 0;
  static final int RR_L_SENT = 1;
  static final int RR_L_RECEIVED = 2;
  static final int RR_L_LOST = 3;
  static final int RR_L_DUPLICATES = 4;
  static final int RR_L_OUT_OF_ORDER = 5;
  static final int RR_L_START_EPOCH = 6;
  static final int RR_L_END_EPOCH = 7;
  static final int RR_L_REMOTE_PORT = 8;
  static final int RR_L_CANCELLED = 9;
  static final int RR_LONGS = 10;

  static final int RR_D_LOSS_PERCENT = 0;
  static final int RR_D_MIN_RTT_MS = 1;
  static final int RR_D_MEAN_RTT_MS = 2;
  static final int RR_D_MEDIAN_RTT_MS = 3;
  static final int RR_D_MAX_RTT_MS = 4;
  static final int RR_D_MIN_IPD_MS = 5;
  static final int RR_D_MEAN_IPD_MS = 6;
  static final int RR_D_MAX_IPD_MS = 7;
  static final int RR_D_IQR_IPD_MS = 8;
  static final int RR_DOUBLES = 9;


  // Layout of the summary arrays passed to nUdpStream.
  static final int ST_L_REQUESTED = 0;
  static final int ST_L_SENT = 1;
  static final int ST_L_RECEIVED = 2;
  static final int ST_L_LOST = 3;
  static final int ST_L_DUPLICATES = 4;
  static final int ST_L_REORDERED = 5;
  static final int ST_L_MAX_EXTENT = 6;
  static final int ST_L_FIRST_SEND = 7;
  static final int ST_L_LAST_SEND = 8;
  static final int ST_L_FIRST_ARRIVAL = 9;
  static final int ST_L_LAST_ARRIVAL = 10;
  static final int ST_L_WIRE_OVERHEAD = 11;
  static final int ST_L_IPDV_PAIRS = 12;
  static final int ST_L_HIST_UNDER = 13;
  static final int ST_L_HIST_OVER = 14;
  static final int ST_L_LOSS_INTERVALS = 15;
  static final int ST_L_FIRST_LOSS_SEQ = 16;
  static final int ST_L_SND_INTR = 17;
  static final int ST_L_RCV_INTR = 18;
  static final int ST_L_RCV_UDP_IN = 19;
  static final int ST_L_RCV_DROPS = 20;
  static final int ST_L_NETWORK_LOST = 21;
  static final int ST_L_INVALID = 22;
  static final int ST_L_OVER = 23;
  static final int ST_L_START_EPOCH = 24;
  static final int ST_L_END_EPOCH = 25;
  static final int ST_L_REMOTE_PORT = 26;
  static final int ST_L_CANCELLED = 27;
  static final int ST_LONGS = 28;

  static final int ST_D_LOSS_PERCENT = 0;
  static final int ST_D_SEND_SPACING_NS = 1;
  static final int ST_D_SEND_USER_MBPS = 2;
  static final int ST_D_SEND_WIRE_MBPS = 3;
  static final int ST_D_RECV_USER_MBPS = 4;
  static final int ST_D_RECV_WIRE_MBPS = 5;
  static final int ST_D_REORDER_RATIO = 6;
  static final int ST_D_NREORDER1 = 7;
  static final int ST_D_NREORDER2 = 8;
  static final int ST_D_NREORDER3 = 9;
  static final int ST_D_OWD_MIN_MS = 10;
  static final int ST_D_OWD_MEDIAN_MS = 11;
  static final int ST_D_OWD_MEAN_MS = 12;
  static final int ST_D_OWD_P95_MS = 13;
  static final int ST_D_OWD_P99_MS = 14;
  static final int ST_D_OWD_MAX_MS = 15;
  static final int ST_D_JITTER_MS = 16;
  static final int ST_D_IPDV_MS = 17;
  static final int ST_D_IAT_MIN_NS = 18;
  static final int ST_D_IAT_MEAN_NS = 19;
  static final int ST_D_IAT_MAX_NS = 20;
  static final int ST_D_HIST_LO_NS = 21;
  static final int ST_D_HIST_WIDTH_NS = 22;
  static final int ST_D_LOSS_MEAN = 23;
  static final int ST_D_LOSS_RATE = 24;
  static final int ST_D_LOSS_KS = 25;
  static final int ST_D_RATE_BEFORE_MBPS = 26;
  static final int ST_D_RATE_AFTER_MBPS = 27;
  static final int ST_D_BUF_FRAMES = 28;
  static final int ST_D_BUF_BYTES = 29;
  static final int ST_D_QDELAY_MS = 30;
  static final int ST_D_BUF_DELAY_BYTES = 31;
  static final int ST_D_SND_CPU = 32;
  static final int ST_D_RCV_CPU = 33;
  static final int ST_DOUBLES = 34;

  // Layout of the per-point arrays passed to nLatencyScan (point i at i * SC_PL / i * SC_PD).
  static final int SC_PL_SIZE = 0;
  static final int SC_PL_SENT = 1;
  static final int SC_PL_RECEIVED = 2;
  static final int SC_PL_UNDER = 3;
  static final int SC_PL_OVER = 4;
  static final int SC_PL = 5;
  static final int SC_PD_MIN_MS = 0;
  static final int SC_PD_MEAN_MS = 1;
  static final int SC_PD_MEDIAN_MS = 2;
  static final int SC_PD_MAX_MS = 3;
  static final int SC_PD_HIST_LO_NS = 4;
  static final int SC_PD_HIST_WIDTH_NS = 5;
  static final int SC_PD = 6;
  static final int SC_MAX_SIZES = 64;

  // Layout of the arrays passed to nClockState.
  static final int CK_L_SYNCHRONISED = 0;
  static final int CK_L_MAX_ERROR_US = 1;
  static final int CK_L_EST_ERROR_US = 2;
  static final int CK_L_STATUS = 3;
  static final int CK_LONGS = 4;

  // Layout of the arrays passed to nTcpStream.
  static final int TS_MAX_STREAMS = 16;
  static final int TS_L_STREAMS = 0;
  static final int TS_L_MSG_SIZE = 1;
  static final int TS_L_BYTES_SENT = 2;
  static final int TS_L_BYTES_RECEIVED = 3;
  static final int TS_L_RETRANS = 4;
  static final int TS_L_BINS = 5;
  static final int TS_L_BIN_NS = 6;
  static final int TS_L_SERIES_START = 7;
  static final int TS_L_RECORDS_OVER = 8;
  static final int TS_L_REFUSED = 9;
  static final int TS_L_START_EPOCH = 10;
  static final int TS_L_END_EPOCH = 11;
  static final int TS_L_REMOTE_PORT = 12;
  static final int TS_L_CANCELLED = 13;
  static final int TS_LONGS = 14;
  static final int TS_D_SENDER_S = 0;
  static final int TS_D_RECEIVER_S = 1;
  static final int TS_D_SEND_MBPS = 2;
  static final int TS_D_RECV_MBPS = 3;
  static final int TS_D_LATE_MIN_MS = 4;
  static final int TS_D_LATE_MEDIAN_MS = 5;
  static final int TS_D_LATE_P99_MS = 6;
  static final int TS_D_LATE_MAX_MS = 7;
  static final int TS_DOUBLES = 8;
  static final int TS_PL_BYTES_SENT = 0;
  static final int TS_PL_BYTES_RECEIVED = 1;
  static final int TS_PL_MSGS_SENT = 2;
  static final int TS_PL_MSGS_RECEIVED = 3;
  static final int TS_PL_FIRST_ARRIVAL = 4;
  static final int TS_PL_LAST_ARRIVAL = 5;
  static final int TS_PL_RETRANS = 6;
  static final int TS_PL_SRTT_US = 7;
  static final int TS_PL = 8;
  static final int TS_PD_SEND_MBPS = 0;
  static final int TS_PD_RECV_MBPS = 1;
  static final int TS_PD = 2;
  static final int TS_A_SERIES = 0;
  static final int TS_A_SAMPLES = 1;
  static final int TS_A_MESSAGES = 2;
  static final int TS_ARRAYS = 3;
  static final int TS_S_T_NS = 0;
  static final int TS_S_STREAM = 1;
  static final int TS_S_CWND = 2;
  static final int TS_S_MSS = 3;
  static final int TS_S_SRTT_US = 4;
  static final int TS_S_RTTVAR_US = 5;
  static final int TS_S_RETRANSMITS = 6;
  static final int TS_S_TOTAL_RETRANS = 7;
  static final int TS_S_PACING = 8;
  static final int TS_S_DELIVERY = 9;
  static final int TS_S_ACKED = 10;
  static final int TS_S = 11;
  static final int TS_M_STREAM = 0;
  static final int TS_M_SEQ = 1;
  static final int TS_M_SCHED = 2;
  static final int TS_M_ARRIVAL = 3;
  static final int TS_M_LATE = 4;
  static final int TS_M = 5;

  // Layout of the arrays passed to nHopList (hop t at t * HL, probe k of hop t at t * MAX + k).
  static final int HL_MAX_TTL = 64;
  static final int HL_MAX_PROBES = 10;
  static final int HL_TTL = 0;
  static final int HL_ANSWERED = 1;
  static final int HL_OTHER_ADDRS = 2;
  static final int HL_ICMP_TYPE = 3;
  static final int HL_ICMP_CODE = 4;
  static final int HL_DESTINATION = 5;
  static final int HL_UNREACHABLE = 6;
  static final int HL = 7;

  // Layout of the arrays passed to nCapacity.
  static final int CP_L_TRAINS = 0;
  static final int CP_L_TRAINS_SENT = 1;
  static final int CP_L_TRAINS_USED = 2;
  static final int CP_L_DISCARDED_LOSS = 3;
  static final int CP_L_DISCARDED_REORDER = 4;
  static final int CP_L_DISCARDED_SENDER = 5;
  static final int CP_L_TRAIN_LENGTH = 6;
  static final int CP_L_SIZE = 7;
  static final int CP_L_SKIP = 8;
  static final int CP_L_GAP_NS = 9;
  static final int CP_L_FRAMES_SENT = 10;
  static final int CP_L_FRAMES_RECEIVED = 11;
  static final int CP_L_FRAME_OVERHEAD = 12;
  static final int CP_L_WIRE_OVERHEAD = 13;
  static final int CP_L_START_EPOCH = 14;
  static final int CP_L_END_EPOCH = 15;
  static final int CP_L_REMOTE_PORT = 16;
  static final int CP_L_CANCELLED = 17;
  static final int CP_LONGS = 18;
  static final int CP_D_USER_MBPS = 0;
  static final int CP_D_FRAME_MBPS = 1;
  static final int CP_D_WIRE_MBPS = 2;
  static final int CP_D_P10 = 3;
  static final int CP_D_P25 = 4;
  static final int CP_D_P75 = 5;
  static final int CP_D_P90 = 6;
  static final int CP_D_IQR = 7;
  static final int CP_D_HEAD_MBPS = 8;
  static final int CP_D_PILOT_SPAN_MS = 9;
  static final int CP_DOUBLES = 10;

  // Layout of the arrays passed to nAvailableBandwidth (step i at i * AB_SL / i * AB_SD).
  static final int AB_MAX_STEPS = 64;
  static final int AB_L_NSTEPS = 0;
  static final int AB_L_BRACKETED = 1;
  static final int AB_L_SIZE = 2;
  static final int AB_L_WIRE_OVERHEAD = 3;
  static final int AB_L_START_EPOCH = 4;
  static final int AB_L_END_EPOCH = 5;
  static final int AB_L_REMOTE_PORT = 6;
  static final int AB_L_CANCELLED = 7;
  static final int AB_LONGS = 8;
  static final int AB_D_ESTIMATE_MBPS = 0;
  static final int AB_D_ESTIMATE_WIRE_MBPS = 1;
  static final int AB_D_LOWER_MBPS = 2;
  static final int AB_D_UPPER_MBPS = 3;
  static final int AB_DOUBLES = 4;
  static final int AB_SD_OFFERED = 0;
  static final int AB_SD_SENT = 1;
  static final int AB_SD_RECEIVED = 2;
  static final int AB_SD_LOSS = 3;
  static final int AB_SD_OWD_MIN_MS = 4;
  static final int AB_SD_OWD_MEDIAN_MS = 5;
  static final int AB_SD_OWD_INCREASE_MS = 6;
  static final int AB_SD_OWD_SLOPE = 7;
  static final int AB_SD = 8;
  static final int AB_SL_FRAMES_SENT = 0;
  static final int AB_SL_FRAMES_RECEIVED = 1;
  static final int AB_SL_FLAGS = 2;
  static final int AB_SL_REFINE = 3;
  static final int AB_SL = 4;
  static final int AB_F_DELAY = 1;
  static final int AB_F_RATE = 2;
  static final int AB_F_LOSS = 4;
  static final int AB_F_SENDER = 8;

  // Layout of the arrays passed to nHopCapacity: info, then hop t at t * HC_L / t * HC_D, the
  // address of hop t at 1 + t (0 is the destination), train i of hop t at t * trains + i.
  static final int HC_MAX_HOPS = 64;
  static final int HC_MAX_TRAINS = 1000;
  static final int HC_MAX_TRAIN_LENGTH = 1000;
  static final int HC_I_NHOPS = 0;
  static final int HC_I_DISCOVERED = 1;
  static final int HC_I_REACHED = 2;
  static final int HC_I_HOP_COUNT = 3;
  static final int HC_I_TRAINS = 4;
  static final int HC_I_TRAIN_LENGTH = 5;
  static final int HC_I_SKIP = 6;
  static final int HC_I_SIZE = 7;
  static final int HC_I_FRAME_OVERHEAD = 8;
  static final int HC_I_WIRE_OVERHEAD = 9;
  static final int HC_I_START_EPOCH = 10;
  static final int HC_I_END_EPOCH = 11;
  static final int HC_I_CANCELLED = 12;
  static final int HC_INFO = 13;
  static final int HC_L_TTL = 0;
  static final int HC_L_DESTINATION = 1;
  static final int HC_L_OTHER_ADDRS = 2;
  static final int HC_L_LOWER_BOUND = 3;
  static final int HC_L_TRAINS_SENT = 4;
  static final int HC_L_TRAINS_USED = 5;
  static final int HC_L_MISSING = 6;
  static final int HC_L_REORDERED = 7;
  static final int HC_L_SENDER_LIMITED = 8;
  static final int HC_L_PROBES_SENT = 9;
  static final int HC_L_REPLIES = 10;
  static final int HC_L_KERNEL_STAMPED = 11;
  static final int HC_L_USER_STAMPED = 12;
  static final int HC_L_ENDS_ONLY = 13;
  static final int HC_L = 14;
  static final int HC_D_USER_MBPS = 0;
  static final int HC_D_FRAME_MBPS = 1;
  static final int HC_D_WIRE_MBPS = 2;
  static final int HC_D_MODE_MBPS = 3;
  static final int HC_D_P10 = 4;
  static final int HC_D_P25 = 5;
  static final int HC_D_P75 = 6;
  static final int HC_D_P90 = 7;
  static final int HC_D_IQR = 8;
  static final int HC_D_HEAD_MBPS = 9;
  static final int HC_D = 10;
  static final int HC_NOT_SENT = 4;

  static final int ERRLEN = 256;

  private static final Throwable UNAVAILABLE;

  static {
    Throwable cause = NativeLoader.load().orElse(null);
    if (cause == null) {
      try {
        int abi = nAbi();
        if (abi != ABI) {
          cause =
              new UnsatisfiedLinkError(
                  "native library ABI " + abi + " does not match Java ABI " + ABI + " (from "
                      + NativeLoader.source() + ")");
        }
      } catch (UnsatisfiedLinkError e) {
        cause = e;
      }
    }
    UNAVAILABLE = cause;
  }

  private Probe() {}

  /** Whether the native engine is loaded and usable. */
  public static boolean isAvailable() {
    return UNAVAILABLE == null;
  }

  /** Why the native engine is not usable, if it is not. */
  public static Optional<Throwable> unavailabilityCause() {
    return Optional.ofNullable(UNAVAILABLE);
  }

  /** The native engine's version, e.g. "0.1.0". */
  public static String version() {
    requireAvailable("version");
    return nVersion();
  }

  /** Runs a request-response test without progress or cancellation. */
  public static RoundTripResult roundTrip(RoundTripSpec spec) {
    return roundTrip(spec, new ProbeControl());
  }

  /**
   * Runs a request-response latency test against an nmprobe responder, blocking until it ends.
   * When {@code control} is cancelled the test stops early and the result has {@code
   * cancelled() == true} and the frames measured so far.
   *
   * @throws ProbeException when the responder is busy, refuses, cannot be reached or answers
   *     wrongly, or when the native engine is unavailable
   * @throws IllegalStateException when {@code control} is already used by a running test
   */
  public static RoundTripResult roundTrip(RoundTripSpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("roundTrip");
    int n = spec.count();
    long[] sumL = new long[RR_LONGS];
    double[] sumD = new double[RR_DOUBLES];
    String[] addrs = new String[2];
    int[] seq = new int[n];
    long[] send = new long[n];
    long[] rtt = new long[n];
    int[] bytes = new int[n];
    int[] ttl = new int[n];
    notSent(seq, rtt, ttl);
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc =
          nRoundTrip(
              spec.host().getBytes(StandardCharsets.UTF_8),
              spec.port(),
              n,
              spec.packetSize(),
              spec.intervalNanos(),
              spec.timeoutNanos(),
              spec.ttl(),
              control.cancelFlag(),
              control,
              sumL,
              sumD,
              addrs,
              seq,
              send,
              rtt,
              bytes,
              ttl,
              err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("roundTrip", -rc, message(err));
    }
    return new RoundTripResult(
        sumD[RR_D_MIN_RTT_MS],
        sumD[RR_D_MEAN_RTT_MS],
        sumD[RR_D_MEDIAN_RTT_MS],
        sumD[RR_D_MAX_RTT_MS],
        sumD[RR_D_MIN_IPD_MS],
        sumD[RR_D_MEAN_IPD_MS],
        sumD[RR_D_MAX_IPD_MS],
        sumD[RR_D_IQR_IPD_MS],
        sumD[RR_D_LOSS_PERCENT],
        (int) sumL[RR_L_REQUESTED],
        (int) sumL[RR_L_SENT],
        (int) sumL[RR_L_RECEIVED],
        (int) sumL[RR_L_LOST],
        (int) sumL[RR_L_DUPLICATES],
        (int) sumL[RR_L_OUT_OF_ORDER],
        sumL[RR_L_START_EPOCH],
        sumL[RR_L_END_EPOCH],
        addrs[0],
        addrs[1],
        (int) sumL[RR_L_REMOTE_PORT],
        seq,
        send,
        rtt,
        bytes,
        ttl,
        sumL[RR_L_CANCELLED] != 0);
  }

  /** Runs a UDP stream test without progress or cancellation. */
  public static UdpStreamResult udpStream(UdpStreamSpec spec) {
    return udpStream(spec, new ProbeControl());
  }

  /**
   * Runs a one-way UDP stream test to an nmprobe responder, blocking until the receiver's records
   * are fetched and analysed. Cancelling stops sending; the records of what was sent are still
   * fetched and the result has {@code cancelled() == true}.
   *
   * @throws ProbeException as {@link #roundTrip(RoundTripSpec, ProbeControl)}
   */
  public static UdpStreamResult udpStream(UdpStreamSpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("udpStream");
    int n = spec.count();
    long[] l = new long[ST_LONGS];
    double[] d = new double[ST_DOUBLES];
    String[] addrs = new String[2];
    long[] hist = new long[spec.histogramBins()];
    int[] seq = new int[n];
    long[] send = new long[n];
    long[] arrival = new long[n];
    long[] owd = new long[n];
    int[] bytes = new int[n];
    notSent(seq, owd, null);
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nUdpStream(spec.host().getBytes(StandardCharsets.UTF_8), spec.port(), n,
          spec.packetSize(), spec.intervalNanos(), spec.timeoutNanos(), spec.ttl(),
          spec.histogramBins(), spec.histogramBinWidthNanos(), control.cancelFlag(), control, l, d,
          addrs, hist, seq, send, arrival, owd, bytes, err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("udpStream", -rc, message(err));
    }
    return new UdpStreamResult(
        (int) l[ST_L_REQUESTED], (int) l[ST_L_SENT], (int) l[ST_L_RECEIVED], (int) l[ST_L_LOST],
        (int) l[ST_L_DUPLICATES], d[ST_D_LOSS_PERCENT],
        new UdpStreamResult.Sender(l[ST_L_FIRST_SEND], l[ST_L_LAST_SEND], d[ST_D_SEND_SPACING_NS],
            d[ST_D_SEND_USER_MBPS], d[ST_D_SEND_WIRE_MBPS]),
        new UdpStreamResult.Receiver(l[ST_L_FIRST_ARRIVAL], l[ST_L_LAST_ARRIVAL],
            d[ST_D_RECV_USER_MBPS], d[ST_D_RECV_WIRE_MBPS], (int) l[ST_L_WIRE_OVERHEAD]),
        new UdpStreamResult.Reordering((int) l[ST_L_REORDERED], d[ST_D_REORDER_RATIO],
            (int) l[ST_L_MAX_EXTENT],
            new double[] {d[ST_D_NREORDER1], d[ST_D_NREORDER2], d[ST_D_NREORDER3]}),
        new UdpStreamResult.OneWayDelay(d[ST_D_OWD_MIN_MS], d[ST_D_OWD_MEDIAN_MS],
            d[ST_D_OWD_MEAN_MS], d[ST_D_OWD_P95_MS], d[ST_D_OWD_P99_MS], d[ST_D_OWD_MAX_MS],
            d[ST_D_JITTER_MS], d[ST_D_IPDV_MS], (int) l[ST_L_IPDV_PAIRS]),
        new UdpStreamResult.Histogram(d[ST_D_HIST_LO_NS], d[ST_D_HIST_WIDTH_NS], hist,
            l[ST_L_HIST_UNDER], l[ST_L_HIST_OVER], d[ST_D_IAT_MIN_NS], d[ST_D_IAT_MEAN_NS],
            d[ST_D_IAT_MAX_NS]),
        new UdpStreamResult.LossPattern((int) l[ST_L_LOSS_INTERVALS], d[ST_D_LOSS_MEAN],
            d[ST_D_LOSS_RATE], d[ST_D_LOSS_KS]),
        new UdpStreamResult.LossOnset(l[ST_L_FIRST_LOSS_SEQ], d[ST_D_RATE_BEFORE_MBPS],
            d[ST_D_RATE_AFTER_MBPS], d[ST_D_BUF_FRAMES], d[ST_D_BUF_BYTES], d[ST_D_QDELAY_MS],
            d[ST_D_BUF_DELAY_BYTES]),
        new UdpStreamResult.Hosts(d[ST_D_SND_CPU], d[ST_D_RCV_CPU], l[ST_L_SND_INTR],
            l[ST_L_RCV_INTR], l[ST_L_RCV_UDP_IN], l[ST_L_RCV_DROPS], (int) l[ST_L_NETWORK_LOST],
            l[ST_L_INVALID], l[ST_L_OVER]),
        l[ST_L_START_EPOCH], l[ST_L_END_EPOCH], addrs[0], addrs[1], (int) l[ST_L_REMOTE_PORT],
        seq, send, arrival, owd, bytes, l[ST_L_CANCELLED] != 0);
  }

  /** Runs a latency scan without progress or cancellation. */
  public static LatencyScanResult latencyScan(LatencyScanSpec spec) {
    return latencyScan(spec, new ProbeControl());
  }

  /**
   * Runs one request-response test per frame size and fits a line through the per-size minimum
   * RTT. Progress counts frames over all sizes. Cancelling keeps the sizes measured so far.
   *
   * @throws ProbeException as {@link #roundTrip(RoundTripSpec, ProbeControl)}
   */
  public static LatencyScanResult latencyScan(LatencyScanSpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("latencyScan");
    int[] sizes = spec.sizes();
    int bins = spec.histogramBins();
    long[] pl = new long[sizes.length * SC_PL];
    double[] pd = new double[sizes.length * SC_PD];
    long[] hist = new long[sizes.length * bins];
    double[] fit = new double[3];
    long[] info = new long[2];
    String[] addr = new String[1];
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nLatencyScan(spec.host().getBytes(StandardCharsets.UTF_8), spec.port(), sizes,
          spec.countPerSize(), spec.intervalNanos(), spec.timeoutNanos(), spec.ttl(), bins,
          control.cancelFlag(), control, pl, pd, hist, fit, info, addr, err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("latencyScan", -rc, message(err));
    }
    List<LatencyScanResult.SizePoint> points = new ArrayList<>();
    for (int i = 0; i < (int) info[0]; i++) {
      int a = i * SC_PL;
      int b = i * SC_PD;
      points.add(new LatencyScanResult.SizePoint((int) pl[a + SC_PL_SIZE],
          (int) pl[a + SC_PL_SENT], (int) pl[a + SC_PL_RECEIVED], pd[b + SC_PD_MIN_MS],
          pd[b + SC_PD_MEAN_MS], pd[b + SC_PD_MEDIAN_MS], pd[b + SC_PD_MAX_MS],
          pd[b + SC_PD_HIST_LO_NS], pd[b + SC_PD_HIST_WIDTH_NS],
          Arrays.copyOfRange(hist, i * bins, (i + 1) * bins), pl[a + SC_PL_UNDER],
          pl[a + SC_PL_OVER]));
    }
    return new LatencyScanResult(points, fit[0], fit[1], fit[2], addr[0], info[1] != 0);
  }

  /**
   * Reads this host's clock state (clock source and NTP synchronisation) with adjtimex(2) in
   * read-only mode.
   *
   * @throws ProbeException when adjtimex fails or the native engine is unavailable
   */
  public static ClockState clockState() {
    requireAvailable("clockState");
    long[] l = new long[CK_LONGS];
    String[] s = new String[2];
    byte[] err = new byte[ERRLEN];
    int rc = nClockState(l, s, err);
    if (rc < 0) {
      throw failure("clockState", -rc, message(err));
    }
    return new ClockState(s[0], l[CK_L_SYNCHRONISED] != 0, l[CK_L_MAX_ERROR_US],
        l[CK_L_EST_ERROR_US], (int) l[CK_L_STATUS], s[1]);
  }

  /** Runs a TCP throughput test without progress or cancellation. */
  public static TcpStreamResult tcpStream(TcpStreamSpec spec) {
    return tcpStream(spec, new ProbeControl());
  }

  /**
   * Runs a memory-to-memory TCP throughput test (one or more streams) to an nmprobe responder,
   * blocking until the receiver's figures are fetched. Progress counts milliseconds of sending
   * time. Cancelling stops sending at a message boundary; the result then has {@code
   * cancelled() == true} and what the receiver got.
   *
   * @throws ProbeException as {@link #roundTrip(RoundTripSpec, ProbeControl)}
   */
  public static TcpStreamResult tcpStream(TcpStreamSpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("tcpStream");
    int n = spec.streams();
    long[] l = new long[TS_LONGS];
    double[] d = new double[TS_DOUBLES];
    long[] pl = new long[n * TS_PL];
    double[] pd = new double[n * TS_PD];
    Object[] arrays = new Object[TS_ARRAYS];
    String[] addrs = new String[2];
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nTcpStream(spec.host().getBytes(StandardCharsets.UTF_8), spec.port(), n,
          spec.messageSize(), spec.intervalNanos(), spec.constantBitRate() ? 1 : 0,
          spec.windowBytes(), spec.durationNanos(), spec.byteLimit(), spec.sampleIntervalNanos(),
          spec.timeoutNanos(), control.cancelFlag(), control, l, d, pl, pd, arrays, addrs, err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("tcpStream", -rc, message(err));
    }
    return TcpStreamResult.fromNative(l, d, pl, pd, (long[]) arrays[TS_A_SERIES],
        (long[]) arrays[TS_A_SAMPLES], (long[]) arrays[TS_A_MESSAGES], addrs);
  }

  /** Runs a hop list without progress or cancellation. */
  public static HopListResult hopList(HopListSpec spec) {
    return hopList(spec, new ProbeControl());
  }

  /**
   * Lists the hops to a destination with TTL-limited UDP probes (unprivileged; ICMP answers
   * read from the socket's error queue). No responder is needed. Progress counts probes sent.
   *
   * @throws ProbeException when the name does not resolve or the socket fails
   */
  public static HopListResult hopList(HopListSpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("hopList");
    long[] hl = new long[HL_MAX_TTL * HL];
    double[] rtt = new double[HL_MAX_TTL * HL_MAX_PROBES];
    String[] strs = new String[1 + 2 * HL_MAX_TTL];
    long[] info = new long[4];
    double[] elapsed = new double[1];
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nHopList(spec.host().getBytes(StandardCharsets.UTF_8), spec.maxTtl(),
          spec.probesPerHop(), (int) (spec.waitNanos() / 1_000_000L), spec.firstPort(),
          spec.packetSize(), spec.parallel(), spec.resolveNames() ? 1 : 0,
          (int) (spec.resolveTimeoutNanos() / 1_000_000L), control.cancelFlag(), control, hl, rtt,
          strs, info, elapsed, err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("hopList", -rc, message(err));
    }
    List<HopListResult.Hop> hops = new ArrayList<>();
    for (int t = 0; t < (int) info[0]; t++) {
      int o = t * HL;
      double[] r = new double[spec.probesPerHop()];
      for (int k = 0; k < r.length; k++) {
        double v = rtt[t * HL_MAX_PROBES + k];
        r[k] = v < 0 ? Double.NaN : v;
      }
      String addr = strs[1 + 2 * t];
      String name = strs[2 + 2 * t];
      hops.add(new HopListResult.Hop((int) hl[o + HL_TTL],
          addr == null || addr.isEmpty() ? Optional.empty() : Optional.of(addr),
          name == null || name.isEmpty() ? Optional.empty() : Optional.of(name), r,
          (int) hl[o + HL_ANSWERED], (int) hl[o + HL_OTHER_ADDRS], (int) hl[o + HL_ICMP_TYPE],
          (int) hl[o + HL_ICMP_CODE], hl[o + HL_DESTINATION] != 0, hl[o + HL_UNREACHABLE] != 0));
    }
    return new HopListResult(hops, info[1] != 0, (int) info[2], strs[0], elapsed[0],
        info[3] != 0);
  }

  /** Runs a capacity test without progress or cancellation. */
  public static CapacityResult capacity(CapacitySpec spec) {
    return capacity(spec, new ProbeControl());
  }

  /**
   * Estimates the path capacity (path.bandwidth.capacity) to an nmprobe responder by packet-train
   * dispersion: a pilot train (unless {@link CapacitySpec#gapNanos()} is set), then the trains in
   * one stream session. Progress counts frames of the trains. Cancelling stops between trains;
   * the result then has {@code cancelled() == true} and the trains sent so far.
   *
   * @throws ProbeException as {@link #roundTrip(RoundTripSpec, ProbeControl)}
   */
  public static CapacityResult capacity(CapacitySpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("capacity");
    int n = spec.trains();
    long[] l = new long[CP_LONGS];
    double[] d = new double[CP_DOUBLES];
    String[] addrs = new String[2];
    double[] mbps = new double[n];
    int[] status = new int[n];
    int[] received = new int[n];
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nCapacity(spec.host().getBytes(StandardCharsets.UTF_8), spec.port(), n,
          spec.trainLength(), spec.packetSize(), spec.skip(), spec.gapNanos(),
          spec.timeoutNanos(), spec.ttl(), control.cancelFlag(), control, l, d, addrs, mbps,
          status, received, err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("capacity", -rc, message(err));
    }
    CapacityResult.TrainStatus[] st = new CapacityResult.TrainStatus[n];
    for (int i = 0; i < n; i++) {
      st[i] = CapacityResult.TrainStatus.of(status[i]);
    }
    return new CapacityResult(
        new CapacityResult.Estimate(d[CP_D_USER_MBPS], d[CP_D_FRAME_MBPS], d[CP_D_WIRE_MBPS]),
        new CapacityResult.Spread(d[CP_D_P10], d[CP_D_P25], d[CP_D_P75], d[CP_D_P90], d[CP_D_IQR]),
        d[CP_D_HEAD_MBPS],
        new CapacityResult.Trains((int) l[CP_L_TRAINS], (int) l[CP_L_TRAINS_SENT],
            (int) l[CP_L_TRAINS_USED], (int) l[CP_L_DISCARDED_LOSS],
            (int) l[CP_L_DISCARDED_REORDER], (int) l[CP_L_DISCARDED_SENDER],
            (int) l[CP_L_TRAIN_LENGTH], (int) l[CP_L_SIZE], (int) l[CP_L_SKIP], l[CP_L_GAP_NS],
            d[CP_D_PILOT_SPAN_MS], (int) l[CP_L_FRAMES_SENT], (int) l[CP_L_FRAMES_RECEIVED],
            (int) l[CP_L_FRAME_OVERHEAD], (int) l[CP_L_WIRE_OVERHEAD]),
        mbps, st, received, l[CP_L_START_EPOCH], l[CP_L_END_EPOCH], addrs[0], addrs[1],
        (int) l[CP_L_REMOTE_PORT], l[CP_L_CANCELLED] != 0);
  }

  /** Runs a per-hop capacity test without progress or cancellation. */
  public static HopCapacityResult hopCapacity(HopCapacitySpec spec) {
    return hopCapacity(spec, new ProbeControl());
  }

  /**
   * Estimates the capacity up to each hop (Trace-Rate style): trains of UDP frames whose TTL
   * expires at the hop, timed by the kernel receive timestamps of the ICMP answers on the
   * socket's error queue. Unprivileged; no responder is needed. The hop list runs first unless
   * {@link HopCapacitySpec#hops()} is set. Progress counts trains over all hops. Cancelling stops
   * at once; the result then has {@code cancelled() == true} and the hops and trains so far.
   *
   * @throws ProbeException when the name does not resolve, no hop answers the hop list, the
   *     frame is larger than the path MTU or the socket fails
   */
  public static HopCapacityResult hopCapacity(HopCapacitySpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("hopCapacity");
    int n = spec.trains();
    int rows = spec.rows();
    long[] info = new long[HC_INFO];
    long[] hl = new long[HC_MAX_HOPS * HC_L];
    double[] hd = new double[HC_MAX_HOPS * HC_D];
    String[] addrs = new String[1 + HC_MAX_HOPS];
    double[] mbps = new double[rows * n];
    int[] status = new int[rows * n];
    Arrays.fill(mbps, Double.NaN);
    Arrays.fill(status, HC_NOT_SENT);
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nHopCapacity(spec.host().getBytes(StandardCharsets.UTF_8), spec.hops(), spec.maxTtl(),
          n, spec.trainLength(), spec.skip(), spec.packetSize(), spec.gapNanos(),
          (int) (spec.waitNanos() / 1_000_000L), spec.firstPort(), control.cancelFlag(), control,
          info, hl, hd, addrs, mbps, status, err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("hopCapacity", -rc, message(err));
    }
    int nhops = (int) Math.max(0, Math.min(Math.min(info[HC_I_NHOPS], HC_MAX_HOPS), rows));
    List<HopCapacityResult.HopEstimate> hops = new ArrayList<>(nhops);
    for (int t = 0; t < nhops; t++) {
      int o = t * HC_L;
      int d = t * HC_D;
      List<Double> rates = new ArrayList<>(n);
      List<HopCapacityResult.TrainStatus> st = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        rates.add(mbps[t * n + i]);
        st.add(HopCapacityResult.TrainStatus.of(status[t * n + i]));
      }
      String addr = addrs[1 + t];
      hops.add(new HopCapacityResult.HopEstimate((int) hl[o + HC_L_TTL],
          addr == null || addr.isEmpty() ? Optional.empty() : Optional.of(addr),
          hl[o + HC_L_DESTINATION] != 0, (int) hl[o + HC_L_OTHER_ADDRS],
          new HopCapacityResult.Estimate(hd[d + HC_D_USER_MBPS], hd[d + HC_D_FRAME_MBPS],
              hd[d + HC_D_WIRE_MBPS]),
          hd[d + HC_D_MODE_MBPS],
          new HopCapacityResult.Spread(hd[d + HC_D_P10], hd[d + HC_D_P25], hd[d + HC_D_P75],
              hd[d + HC_D_P90], hd[d + HC_D_IQR]),
          hd[d + HC_D_HEAD_MBPS], hl[o + HC_L_LOWER_BOUND] != 0, hl[o + HC_L_ENDS_ONLY] != 0,
          new HopCapacityResult.Trains((int) hl[o + HC_L_TRAINS_SENT],
              (int) hl[o + HC_L_TRAINS_USED], (int) hl[o + HC_L_MISSING],
              (int) hl[o + HC_L_REORDERED], (int) hl[o + HC_L_SENDER_LIMITED]),
          new HopCapacityResult.Answers((int) hl[o + HC_L_PROBES_SENT],
              (int) hl[o + HC_L_REPLIES], (int) hl[o + HC_L_KERNEL_STAMPED],
              (int) hl[o + HC_L_USER_STAMPED]),
          rates, st));
    }
    return new HopCapacityResult(hops, info[HC_I_DISCOVERED] != 0, info[HC_I_REACHED] != 0,
        (int) info[HC_I_HOP_COUNT], addrs[0] == null ? "" : addrs[0], (int) info[HC_I_TRAINS],
        (int) info[HC_I_TRAIN_LENGTH], (int) info[HC_I_SKIP], (int) info[HC_I_SIZE],
        (int) info[HC_I_FRAME_OVERHEAD], (int) info[HC_I_WIRE_OVERHEAD],
        info[HC_I_START_EPOCH], info[HC_I_END_EPOCH], info[HC_I_CANCELLED] != 0);
  }

  /** Runs an available-bandwidth rate scan without progress or cancellation. */
  public static AvailableBandwidthResult availableBandwidth(AvailableBandwidthSpec spec) {
    return availableBandwidth(spec, new ProbeControl());
  }

  /**
   * Estimates the available bandwidth (path.bandwidth.available) to an nmprobe responder by a rate
   * scan of UDP streams, one session per step. Progress counts steps. Cancelling stops the scan;
   * the result then has {@code cancelled() == true} and the steps so far.
   *
   * @throws ProbeException as {@link #roundTrip(RoundTripSpec, ProbeControl)}
   */
  public static AvailableBandwidthResult availableBandwidth(
      AvailableBandwidthSpec spec, ProbeControl control) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(control, "control");
    requireAvailable("availableBandwidth");
    long[] l = new long[AB_LONGS];
    double[] d = new double[AB_DOUBLES];
    String[] addrs = new String[2];
    double[] sd = new double[AB_MAX_STEPS * AB_SD];
    long[] sl = new long[AB_MAX_STEPS * AB_SL];
    byte[] err = new byte[ERRLEN];
    control.acquire();
    int rc;
    try {
      rc = nAvailableBandwidth(spec.host().getBytes(StandardCharsets.UTF_8), spec.port(),
          spec.packetSize(), spec.minMbps(), spec.maxMbps(), spec.stepMbps(), spec.refine(),
          spec.stepNanos(), spec.pauseNanos(), spec.lossPercent(), spec.rateTolerance(),
          spec.delayThresholdNanos(), spec.timeoutNanos(), spec.ttl(), control.cancelFlag(),
          control, l, d, addrs, sd, sl, err);
    } finally {
      control.release();
    }
    if (rc < 0) {
      throw failure("availableBandwidth", -rc, message(err));
    }
    List<AvailableBandwidthResult.Step> steps = new ArrayList<>();
    for (int i = 0; i < (int) l[AB_L_NSTEPS]; i++) {
      int a = i * AB_SD;
      int b = i * AB_SL;
      int flags = (int) sl[b + AB_SL_FLAGS];
      steps.add(new AvailableBandwidthResult.Step(sd[a + AB_SD_OFFERED], sd[a + AB_SD_SENT],
          sd[a + AB_SD_RECEIVED], sd[a + AB_SD_LOSS], sd[a + AB_SD_OWD_MIN_MS],
          sd[a + AB_SD_OWD_MEDIAN_MS], sd[a + AB_SD_OWD_INCREASE_MS], sd[a + AB_SD_OWD_SLOPE],
          (int) sl[b + AB_SL_FRAMES_SENT], (int) sl[b + AB_SL_FRAMES_RECEIVED],
          (flags & AB_F_DELAY) != 0, (flags & AB_F_RATE) != 0, (flags & AB_F_LOSS) != 0,
          (flags & AB_F_SENDER) != 0, sl[b + AB_SL_REFINE] != 0));
    }
    return new AvailableBandwidthResult(steps, d[AB_D_ESTIMATE_MBPS], d[AB_D_ESTIMATE_WIRE_MBPS],
        d[AB_D_LOWER_MBPS], d[AB_D_UPPER_MBPS], l[AB_L_BRACKETED] != 0, (int) l[AB_L_SIZE],
        (int) l[AB_L_WIRE_OVERHEAD], l[AB_L_START_EPOCH], l[AB_L_END_EPOCH], addrs[0], addrs[1],
        (int) l[AB_L_REMOTE_PORT], l[AB_L_CANCELLED] != 0);
  }

  /**
   * Fills per-frame arrays with the values of frames never sent (seq = index, times -1, TTL -1).
   * The native side overwrites them with what it measured; a test cancelled before its session
   * started returns them as they are.
   */
  private static void notSent(int[] seq, long[] minusOne, int[] ttl) {
    for (int i = 0; i < seq.length; i++) {
      seq[i] = i;
    }
    Arrays.fill(minusOne, -1L);
    if (ttl != null) {
      Arrays.fill(ttl, -1);
    }
  }

  private static void requireAvailable(String call) {
    if (UNAVAILABLE != null) {
      throw new ProbeException(
          ProbeException.Reason.UNAVAILABLE,
          0,
          call + ": native probe engine unavailable: " + UNAVAILABLE.getMessage(),
          UNAVAILABLE);
    }
  }

  private static String message(byte[] err) {
    int len = 0;
    while (len < err.length && err[len] != 0) {
      len++;
    }
    return new String(err, 0, len, StandardCharsets.UTF_8);
  }

  // errno values of Linux, as returned (negated) by the engine
  private static final int EPERM = 1;
  private static final int ENOENT = 2;
  private static final int EBUSY = 16;
  private static final int EPROTO = 71;
  private static final int ENETUNREACH = 101;
  private static final int ECONNRESET = 104;
  private static final int ETIMEDOUT = 110;
  private static final int ECONNREFUSED = 111;
  private static final int EHOSTUNREACH = 113;

  static ProbeException failure(String call, int errno, String nativeMessage) {
    ProbeException.Reason reason =
        switch (errno) {
          case EBUSY -> ProbeException.Reason.BUSY;
          case EPERM -> ProbeException.Reason.REFUSED;
          case ENOENT -> ProbeException.Reason.RESOLVE;
          case ECONNREFUSED, ECONNRESET, ENETUNREACH, EHOSTUNREACH -> ProbeException.Reason.CONNECT;
          case ETIMEDOUT -> ProbeException.Reason.TIMEOUT;
          case EPROTO -> ProbeException.Reason.PROTOCOL;
          default -> ProbeException.Reason.INTERNAL;
        };
    String text = nativeMessage.isEmpty() ? "error " + errno : nativeMessage;
    return new ProbeException(reason, errno, text, null);
  }

  private static native int nAbi();

  private static native int nHopCapacity(
      byte[] host,
      int hops,
      int maxTtl,
      int trains,
      int trainLength,
      int skip,
      int packetSize,
      long gapNanos,
      int waitMillis,
      int firstPort,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] info,
      long[] hopLongs,
      double[] hopDoubles,
      String[] addresses,
      double[] trainFrameMbps,
      int[] trainStatus,
      byte[] errorMessage);

  private static native int nCapacity(
      byte[] host,
      int port,
      int trains,
      int trainLength,
      int packetSize,
      int skip,
      long gapNanos,
      long timeoutNanos,
      int ttl,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] summaryLongs,
      double[] summaryDoubles,
      String[] addresses,
      double[] trainUserMbps,
      int[] trainStatus,
      int[] trainReceived,
      byte[] errorMessage);

  private static native int nAvailableBandwidth(
      byte[] host,
      int port,
      int packetSize,
      double minMbps,
      double maxMbps,
      double stepMbps,
      int refine,
      long stepNanos,
      long pauseNanos,
      double lossPercent,
      double rateTolerance,
      long delayThresholdNanos,
      long timeoutNanos,
      int ttl,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] summaryLongs,
      double[] summaryDoubles,
      String[] addresses,
      double[] stepDoubles,
      long[] stepLongs,
      byte[] errorMessage);

  private static native int nHopList(
      byte[] host,
      int maxTtl,
      int probes,
      int waitMillis,
      int firstPort,
      int packetSize,
      int parallel,
      int resolve,
      int resolveMillis,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] hopLongs,
      double[] rttMillis,
      String[] strings,
      long[] info,
      double[] elapsedMillis,
      byte[] errorMessage);

  private static native int nTcpStream(
      byte[] host,
      int port,
      int streams,
      int messageSize,
      long intervalNanos,
      int constantBitRate,
      int windowBytes,
      long durationNanos,
      long byteLimit,
      long sampleIntervalNanos,
      long timeoutNanos,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] summaryLongs,
      double[] summaryDoubles,
      long[] perStreamLongs,
      double[] perStreamDoubles,
      Object[] arrays,
      String[] addresses,
      byte[] errorMessage);

  private static native int nClockState(long[] longs, String[] strings, byte[] errorMessage);

  private static native int nUdpStream(
      byte[] host,
      int port,
      int count,
      int packetSize,
      long intervalNanos,
      long timeoutNanos,
      int ttl,
      int histogramBins,
      long histogramBinWidthNanos,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] summaryLongs,
      double[] summaryDoubles,
      String[] addresses,
      long[] histogram,
      int[] seq,
      long[] sendEpochNanos,
      long[] arrivalEpochNanos,
      long[] owdNanos,
      int[] bytes,
      byte[] errorMessage);

  private static native int nLatencyScan(
      byte[] host,
      int port,
      int[] sizes,
      int countPerSize,
      long intervalNanos,
      long timeoutNanos,
      int ttl,
      int histogramBins,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] pointLongs,
      double[] pointDoubles,
      long[] histograms,
      double[] fit,
      long[] info,
      String[] remoteAddress,
      byte[] errorMessage);

  private static native String nVersion();

  private static native int nRoundTrip(
      byte[] host,
      int port,
      int count,
      int packetSize,
      long intervalNanos,
      long timeoutNanos,
      int ttl,
      ByteBuffer cancelFlag,
      ProbeControl control,
      long[] summaryLongs,
      double[] summaryDoubles,
      String[] addresses,
      int[] seq,
      long[] sendEpochNanos,
      long[] rttNanos,
      int[] bytes,
      int[] ttlOut,
      byte[] errorMessage);
}
