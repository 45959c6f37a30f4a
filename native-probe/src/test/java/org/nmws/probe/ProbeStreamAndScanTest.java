package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real UDP streams and latency scans through JNI against the responder executable. */
class ProbeStreamAndScanTest {

  private static ResponderProcess responder;

  @BeforeAll
  static void start() throws Exception {
    responder = new ResponderProcess();
  }

  @AfterAll
  static void stop() throws Exception {
    assertEquals(0, responder.stop(), responder.log());
  }

  @Test
  void aPacedStreamOverLoopbackArrivesCompletelyAtTheOfferedRate() {
    AtomicInteger calls = new AtomicInteger();
    UdpStreamSpec spec =
        UdpStreamSpec.defaults("127.0.0.1").withPort(responder.port()).withCount(3000)
            .withPacketSize(1000).withIntervalNanos(40_000).withTimeoutNanos(200_000_000L);
    UdpStreamResult r =
        Probe.udpStream(spec, new ProbeControl((done, total) -> calls.incrementAndGet()));
    System.out.println(r);

    assertEquals(3000, r.requested());
    assertEquals(3000, r.sent());
    assertEquals(0, r.hosts().networkLost(), "loopback loses only in socket buffers");
    assertTrue(r.received() >= 2970, "received " + r.received());
    assertEquals(r.sent() - r.received(), r.lost());
    assertFalse(r.cancelled());
    // 1000 B every 40 us = 200 Mbit/s offered. How far below the host's scheduling leaves the
    // rates is not this test's business (the lab checks rates against truth): only the pacer's
    // bound, never early, never above the offer.
    assertTrue(r.sender().spacingNanos() >= 39_900, "spacing " + r.sender().spacingNanos());
    assertTrue(r.sender().userMbps() > 0 && r.sender().userMbps() <= 200.5, "send rate " + r.sender().userMbps());
    assertEquals(r.sender().userMbps() * 1066 / 1000, r.sender().wireMbps(), 1e-6);
    assertEquals(66, r.receiver().wireOverheadBytes());
    assertTrue(r.receiver().userMbps() > 0, "receive rate " + r.receiver().userMbps());
    assertTrue(r.delay().minMs() > 0 && r.delay().minMs() < 10, r.delay().toString());
    assertTrue(r.delay().minMs() <= r.delay().medianMs()
        && r.delay().medianMs() <= r.delay().p95Ms() && r.delay().p99Ms() <= r.delay().maxMs());
    assertEquals(r.delay().p95Ms() - r.delay().medianMs(), r.delay().jitterMs(), 1e-9);
    assertTrue(r.hosts().receiverUdpDatagrams() >= r.received());
    assertTrue(r.hosts().receiverCpuPercent() > 0 && r.hosts().receiverCpuPercent() <= 100);
    long[] counts = r.interArrival().counts();
    assertEquals(50, counts.length);
    long total = Arrays.stream(counts).sum() + r.interArrival().under() + r.interArrival().over();
    assertEquals(r.received() - 1, total);

    long[] ts = r.timeSequence();
    long[] arrival = r.arrivalEpochNanos();
    long[] owd = r.owdNanos();
    long[] send = r.sendEpochNanos();
    for (int i = 0; i < 3000; i++) {
      if (arrival[i] == 0) {
        assertEquals(-1, ts[i]);
        assertEquals(-1, owd[i]);
      } else {
        assertEquals(arrival[i] - send[i], owd[i]);
        assertTrue(ts[i] >= 0);
      }
    }
    assertTrue(calls.get() >= 2, "progress calls " + calls.get());
  }

  @Test
  void aLatencyScanMeasuresEverySizeAndFitsALine() {
    LatencyScanSpec spec =
        LatencyScanSpec.defaults("127.0.0.1").withPort(responder.port())
            .withSizes(64, 1472, 4000, 8972).withCountPerSize(50);
    LatencyScanResult r = Probe.latencyScan(spec);
    assertEquals(4, r.points().size());
    assertArrayEquals(new int[] {64, 1472, 4000, 8972},
        r.points().stream().mapToInt(LatencyScanResult.SizePoint::size).toArray());
    for (LatencyScanResult.SizePoint p : r.points()) {
      assertEquals(50, p.sent());
      assertEquals(50, p.received());
      assertTrue(p.minRttMs() > 0 && p.minRttMs() <= p.medianRttMs() && p.medianRttMs() <= p.maxRttMs());
      assertEquals(50, Arrays.stream(p.histogram()).sum() + p.histogramUnder() + p.histogramOver());
    }
    assertTrue(Double.isFinite(r.slopeUsPerByte()) && Double.isFinite(r.interceptUs()));
    assertTrue(r.r2() >= 0 && r.r2() <= 1, "r2 " + r.r2());
    assertEquals("127.0.0.1", r.remoteAddress());
    System.out.printf("scan slope %.6f us/byte intercept %.2f us r2 %.3f%n", r.slopeUsPerByte(),
        r.interceptUs(), r.r2());
  }

  @Test
  void streamAndScanSpecsRejectOutOfRangeValues() {
    UdpStreamSpec s = UdpStreamSpec.defaults("127.0.0.1");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> s.withHistogram(0, 0));
    assertEquals("histogramBins must be in 1..1000, was 0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> s.withPacketSize(9001));
    assertEquals("packetSize must be in 32..9000, was 9001", e.getMessage());
    LatencyScanSpec l = LatencyScanSpec.defaults("127.0.0.1");
    e = assertThrows(IllegalArgumentException.class, () -> l.withSizes(64));
    assertEquals("sizes must hold 2..64 entries, was 1", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> l.withSizes(64, 20));
    assertEquals("sizes[] must be in 32..9000, was 20", e.getMessage());
  }
}
