package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real round trips through JNI against the real responder executable on 127.0.0.1. */
class ProbeRoundTripTest {

  private static ResponderProcess responder;

  @BeforeAll
  static void startResponder() throws Exception {
    responder = new ResponderProcess("-v");
  }

  @AfterAll
  static void stopResponder() throws Exception {
    int rc = responder.stop();
    assertEquals(0, rc, "responder exit code on SIGTERM; log:\n" + responder.log());
  }

  private static RoundTripSpec spec() {
    return RoundTripSpec.defaults("127.0.0.1").withPort(responder.port());
  }

  @Test
  void theNativeEngineIsLoadedAndReportsItsVersion() {
    assertTrue(Probe.isAvailable(), () -> "unavailable: " + Probe.unavailabilityCause());
    assertTrue(Probe.unavailabilityCause().isEmpty());
    assertEquals("0.1.0", Probe.version());
  }

  @Test
  void aRoundTripOverLoopbackAnswersEveryFrameWithRealTimes() {
    long before = System.currentTimeMillis() * 1_000_000L;
    RoundTripResult r =
        Probe.roundTrip(spec().withCount(100).withPacketSize(200).withIntervalNanos(200_000));
    long after = System.currentTimeMillis() * 1_000_000L + 1_000_000L;

    assertEquals(100, r.requested());
    assertEquals(100, r.sent());
    assertEquals(100, r.received());
    assertEquals(0, r.lost());
    assertEquals(0, r.duplicates());
    assertEquals(0.0, r.lossPercent());
    assertFalse(r.cancelled());
    assertEquals("127.0.0.1", r.remoteAddress());
    assertEquals("127.0.0.1", r.localAddress());
    assertEquals(responder.port(), r.remotePort());
    assertTrue(r.minRttMs() > 0, "min RTT " + r.minRttMs());
    assertTrue(r.minRttMs() <= r.medianRttMs() && r.medianRttMs() <= r.maxRttMs(), r.toString());
    assertTrue(r.meanRttMs() >= r.minRttMs() && r.meanRttMs() <= r.maxRttMs(), r.toString());
    assertTrue(Double.isFinite(r.maxRttMs()), r.toString());
    assertTrue(r.medianRttMs() <= r.p99RttMs() && r.p99RttMs() <= r.maxRttMs(), "p99 between median and max: " + r);
    assertTrue(r.minIpdMs() >= 0 && r.minIpdMs() <= r.meanIpdMs() && r.meanIpdMs() <= r.maxIpdMs());
    assertTrue(r.maxIpdMs() <= r.maxRttMs() - r.minRttMs() + 1e-9, r.toString());
    assertTrue(r.iqrIpdMs() >= 0, r.toString());
    assertTrue(before <= r.startEpochNanos() && r.startEpochNanos() < r.endEpochNanos());
    assertTrue(r.endEpochNanos() <= after);

    int[] seq = r.seq();
    long[] send = r.sendEpochNanos();
    long[] rtt = r.rttNanos();
    double minMs = Double.MAX_VALUE;
    for (int i = 0; i < 100; i++) {
      assertEquals(i, seq[i]);
      assertTrue(rtt[i] > 0, "rtt of frame " + i);
      assertEquals(200, r.bytes()[i]);
      assertEquals(64, r.ttl()[i], "reply TTL on loopback");
      assertTrue(send[i] >= r.startEpochNanos() && send[i] <= r.endEpochNanos());
      // sends follow a fixed schedule from frame 0: never early (a late frame may be followed by
      // a shorter gap); 50 us of slack for the wall clock read beside the monotonic one
      assertTrue(send[i] - send[0] >= i * 200_000L - 50_000L, "frame " + i + " sent early");
      minMs = Math.min(minMs, rtt[i] / 1e6);
    }
    assertEquals(minMs, r.minRttMs(), 1e-9);
    // 99 intervals of 200 us
    assertTrue(send[99] - send[0] >= 19_750_000L, "paced span " + (send[99] - send[0]));
    // the responder turned every frame round and said how long it held it
    assertEquals(100, r.turnaroundKnown());
    long[] host = r.hostNanos();
    for (int i = 0; i < 100; i++) {
      assertTrue(host[i] >= 0 && host[i] <= rtt[i], "host part of frame " + i + ": " + host[i]);
    }
    assertTrue(r.maxHostMs() >= 0 && r.maxHostMs() <= r.maxRttMs(), r.toString());
    assertTrue(r.p99PathRttMs() > 0 && r.p99PathRttMs() <= r.p99RttMs() + 1e-9, r.toString());
    System.out.println(r);
  }

  @Test
  void aClosedLoopSendsEachFrameOnlyOnceTheOneBeforeWasAnswered() {
    RoundTripResult r = Probe.roundTrip(spec().withCount(500).withIntervalNanos(0)
        .withTimeoutNanos(20_000_000L).withClosedLoop(true));
    assertEquals(500, r.received(), r.toString());
    long[] send = r.sendEpochNanos();
    long[] rtt = r.rttNanos();
    for (int i = 1; i < 500; i++) {
      // wall send stamps against monotonic RTTs: 1 us for the reads of the two clocks
      assertTrue(send[i] + 1_000 >= send[i - 1] + rtt[i - 1],
          "frame " + i + " left before frame " + (i - 1) + " was answered");
    }
  }

  @Test
  void aSecondSessionWhileOneRunsIsRefusedAsBusy() throws Exception {
    try (Socket held = new Socket(InetAddress.getLoopbackAddress(), responder.port())) {
      OutputStream out = held.getOutputStream();
      out.write(
          "NMP/1 SESSION kind=rr frames=10 size=64 interval_ns=1000000 timeout_ms=1000\n"
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(held.getInputStream(), StandardCharsets.US_ASCII));
      String ok = in.readLine();
      assertTrue(ok.startsWith("NMP/1 OK port="), ok);

      ProbeException e = assertThrows(ProbeException.class, () -> Probe.roundTrip(spec()));
      assertEquals(ProbeException.Reason.BUSY, e.reason());
      assertTrue(
          e.getMessage().startsWith("responder 127.0.0.1:" + responder.port() + " busy: another client's test"),
          e.getMessage());
      assertTrue(e.getMessage().contains("retry after"), e.getMessage());
      // nothing about the owner: not its address, its kind of test or its session
      assertTrue(!e.getMessage().contains("from") && !e.getMessage().contains("rr"), e.getMessage());
    }
    // closing the control connection ends the held session
    RoundTripResult r = retryWhileBusy();
    assertEquals(10, r.received());
  }

  private static RoundTripResult retryWhileBusy() throws InterruptedException {
    for (int i = 0; ; i++) {
      try {
        return Probe.roundTrip(spec());
      } catch (ProbeException e) {
        if (e.reason() != ProbeException.Reason.BUSY || i > 50) {
          throw e;
        }
        Thread.sleep(20);
      }
    }
  }

  @Test
  void aRunningTestCanBeCancelledFromAnotherThreadAndReportsProgress() throws Exception {
    List<int[]> progress = Collections.synchronizedList(new ArrayList<>());
    ProbeControl control = new ProbeControl((done, total) -> progress.add(new int[] {done, total}));
    ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor();
    try {
      ex.schedule(control::cancel, 350, TimeUnit.MILLISECONDS);
      RoundTripResult r =
          Probe.roundTrip(spec().withCount(1000).withIntervalNanos(5_000_000L), control);
      // review: no timed assertions (how long it took, how many progress calls came); the
      // cancelled flag, the counts and the per-frame arrays say that the test stopped early
      assertTrue(r.cancelled());
      assertTrue(control.isCancelled());
      assertEquals(1000, r.requested());
      assertTrue(r.sent() > 0 && r.sent() < 1000, "sent " + r.sent());
      assertTrue(r.received() <= r.sent(), r.toString());
      long[] rtt = r.rttNanos();
      long[] send = r.sendEpochNanos();
      for (int i = 0; i < 1000; i++) {
        if (i < r.sent()) {
          assertTrue(send[i] > 0, "frame " + i + " was sent");
        } else {
          assertEquals(0L, send[i], "frame " + i + " was not sent");
          assertEquals(-1L, rtt[i], "frame " + i + " has no RTT");
        }
      }
      assertTrue(Double.isFinite(r.minRttMs()) && r.minRttMs() > 0, r.toString());
      assertTrue(r.received() > 0, r.toString());
      assertTrue(progress.size() >= 1, "progress calls " + progress.size());
      for (int[] p : progress) {
        assertTrue(p[0] >= 0 && p[0] <= p[1] && p[1] == 1000, p[0] + " of " + p[1]);
      }
      int[] last = progress.get(progress.size() - 1);
      assertEquals(r.sent(), last[0]);
      assertEquals(1000, last[1]);
    } finally {
      ex.shutdownNow();
    }
  }

  @Test
  void aClosedPortGivesAConnectErrorNamingTheAddress() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    ProbeException e =
        assertThrows(ProbeException.class, () -> Probe.roundTrip(spec().withPort(closed)));
    assertEquals(ProbeException.Reason.CONNECT, e.reason());
    assertEquals("connect 127.0.0.1:" + closed + ": Connection refused", e.getMessage());
  }

  @Test
  void aSessionBeyondTheResponderLimitsIsRefusedWithItsReason() throws Exception {
    try (ResponderProcess small = new ResponderProcess("--max-frames", "50")) {
      ProbeException e =
          assertThrows(
              ProbeException.class,
              () -> Probe.roundTrip(spec().withPort(small.port()).withCount(51)));
      assertEquals(ProbeException.Reason.REFUSED, e.reason());
      assertTrue(e.getMessage().endsWith("frames=51 out of range 1..50"), e.getMessage());
    }
  }

  @Test
  void aControlServesOneTestAtATime() {
    ProbeControl control = new ProbeControl();
    control.acquire();
    try {
      assertThrows(IllegalStateException.class, () -> Probe.roundTrip(spec(), control));
    } finally {
      control.release();
    }
  }
}
