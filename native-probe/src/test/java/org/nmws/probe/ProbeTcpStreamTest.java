package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real TCP throughput tests through JNI against the responder executable over loopback. */
class ProbeTcpStreamTest {

  private static ResponderProcess responder;

  @BeforeAll
  static void start() throws Exception {
    responder = new ResponderProcess();
  }

  @AfterAll
  static void stop() throws Exception {
    assertEquals(0, responder.stop(), responder.log());
  }

  private static TcpStreamSpec spec() {
    return TcpStreamSpec.defaults("127.0.0.1").withPort(responder.port())
        .withDurationNanos(300_000_000L).withSampleIntervalNanos(50_000_000L);
  }

  @Test
  void fourStreamsDeliverEveryByteAndTheSeriesAddsUpToTheTotal() {
    AtomicInteger calls = new AtomicInteger();
    TcpStreamResult r = Probe.tcpStream(spec().withStreams(4),
        new ProbeControl((done, total) -> calls.incrementAndGet()));
    System.out.println(r);
    assertEquals(4, r.streams());
    assertEquals(4, r.perStream().size());
    assertEquals(r.bytesSent(), r.bytesReceived());
    long sum = 0;
    for (TcpStreamResult.PerStream p : r.perStream()) {
      assertEquals(p.bytesSent(), p.bytesReceived());
      assertEquals(p.messagesSent() * 131072, p.bytesSent());
      assertTrue(p.receiveMbps() > 0, p.toString());
      sum += p.bytesReceived();
    }
    assertEquals(r.bytesReceived(), sum);
    assertEquals(r.bytesReceived(), Arrays.stream(r.series().bytes()).sum());
    assertEquals(50_000_000L, r.series().binNanos());
    assertEquals(r.bytesReceived() * 8e3 / (r.receiverSeconds() * 1e9), r.throughputMbps(),
        r.throughputMbps() * 1e-6);
    // a sample a stream every 50 ms of the run: 7 each when the sampler keeps time; a loaded
    // machine (CI met 24 at load 10) delays the timer, so fewer but never none
    assertTrue(r.tcpInfo().size() >= 4 * 5, "samples " + r.tcpInfo().size());
    int last = r.tcpInfo().size() - 1;
    assertTrue(r.tcpInfo().mssBytes()[last] > 0 && r.tcpInfo().cwndSegments()[last] > 0);
    assertEquals(0, r.lateness().size());
    assertTrue(Double.isNaN(r.lateness().maxMs()));
    assertFalse(r.cancelled());
    assertTrue(calls.get() >= 2, "progress calls " + calls.get());
  }

  @Test
  void theStreamsUseTheCongestionControlAskedForAndTheResultNamesIt() {
    TcpStreamResult r = Probe.tcpStream(spec().withStreams(2).withDurationNanos(100_000_000L)
        .withCongestion("reno"));
    assertEquals("reno", r.congestionControl());
    assertTrue(r.bytesReceived() > 0);
    TcpStreamResult d = Probe.tcpStream(spec().withDurationNanos(100_000_000L));
    assertFalse(d.congestionControl().isEmpty(), "the system's default is named");
    assertThrows(IllegalArgumentException.class, () -> spec().withCongestion("BBR!"));
    ProbeException e = assertThrows(ProbeException.class,
        () -> Probe.tcpStream(spec().withCongestion("nosuchcc")));
    assertTrue(e.getMessage().contains("congestion control nosuchcc"), e.getMessage());
  }

  @Test
  void constantBitRateReportsEveryMessageAgainstItsSchedule() {
    TcpStreamResult r = Probe.tcpStream(
        spec().withMessageSize(10_000).withConstantBitRate(1_000_000L)
            .withDurationNanos(200_000_000L).withSampleIntervalNanos(10_000_000L));
    System.out.println(r);
    TcpStreamResult.Lateness l = r.lateness();
    assertEquals(200, l.size(), "every message due in the 200 ms, late or not");
    assertEquals(l.size() * 10_000L, r.bytesReceived());
    for (int i = 0; i < l.size(); i++) {
      assertEquals(i, l.seq()[i]);
      assertEquals(l.arrivalEpochNanos()[i] - l.scheduledEpochNanos()[i], l.latenessNanos()[i]);
      assertEquals(l.scheduledEpochNanos()[0] + i * 1_000_000L, l.scheduledEpochNanos()[i]);
      assertTrue(l.latenessNanos()[i] >= 0);
    }
    assertTrue(l.minMs() <= l.medianMs() && l.medianMs() <= l.p99Ms() && l.p99Ms() <= l.maxMs());
    // 10 kB per ms = 80 Mbit/s offered: never more (the CBR schedule), and less only if the host stalls
    assertTrue(r.throughputMbps() > 0 && r.throughputMbps() < 95, "rate " + r.throughputMbps());
  }

  @Test
  void aByteLimitStopsAtWholeMessages() {
    TcpStreamResult r = Probe.tcpStream(
        spec().withStreams(2).withMessageSize(1000).withByteLimit(100_000)
            .withDurationNanos(5_000_000_000L));
    assertEquals(100_000, r.bytesSent());
    assertEquals(100_000, r.bytesReceived());
  }

  @Test
  void specsOutOfRangeAreRejectedWithTheFieldName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> spec().withStreams(17));
    assertEquals("streams must be in 1..16, was 17", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> spec().withConstantBitRate(0));
    assertTrue(e.getMessage().startsWith("intervalNanos must be in 1.."), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> spec().withWindowBytes(100));
    assertTrue(e.getMessage().startsWith("windowBytes must be in 2048.."), e.getMessage());
  }

  @Test
  void aClosedPortIsAConnectFailure() {
    ProbeException e = assertThrows(ProbeException.class,
        () -> Probe.tcpStream(spec().withPort(1)));
    assertEquals(ProbeException.Reason.CONNECT, e.reason());
  }
}
