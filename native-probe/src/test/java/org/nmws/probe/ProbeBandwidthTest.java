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

/**
 * Capacity (packet trains) and available bandwidth (rate scan) through JNI against the responder
 * executable on loopback. Accuracy against configured truth is proved in the namespace lab
 * (test/lab/lab_bandwidth.sh); loopback has no bottleneck but the sender, so these tests check the
 * accounting, the layouts and the JNI path.
 */
class ProbeBandwidthTest {

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
  void aCapacityTestSendsEveryTrainAndAccountsForEachOfThem() {
    CapacitySpec spec =
        CapacitySpec.defaults("127.0.0.1").withPort(responder.port()).withTrains(10, 50);
    AtomicInteger calls = new AtomicInteger();
    CapacityResult r =
        Probe.capacity(spec, new ProbeControl((done, total) -> calls.incrementAndGet()));
    System.out.println(r.estimate() + " " + r.trains() + " " + Arrays.toString(r.trainStatus()));

    CapacityResult.Trains t = r.trains();
    assertEquals(10, t.trains());
    assertEquals(10, t.trainsSent());
    assertEquals(50, t.trainLength());
    assertEquals(1472, t.packetSize());
    assertEquals(25, t.skip());
    assertEquals(500, t.framesSent());
    assertTrue(t.framesReceived() >= 490, "received " + t.framesReceived());
    assertEquals(42, t.frameOverheadBytes());
    assertEquals(66, t.wireOverheadBytes());
    assertTrue(t.gapNanos() >= 1_000_000L && t.gapNanos() <= 1_000_000_000L, "gap " + t.gapNanos());
    assertTrue(t.pilotSpanMs() > 0, "pilot " + t.pilotSpanMs());
    assertEquals(10, t.trainsUsed() + t.discardedLoss() + t.discardedReordered()
        + t.discardedSenderLimited());
    CapacityResult.TrainStatus[] st = r.trainStatus();
    assertEquals(10, st.length);
    assertEquals(t.trainsUsed(),
        Arrays.stream(st).filter(s -> s == CapacityResult.TrainStatus.USED).count());
    assertEquals(t.discardedSenderLimited(),
        Arrays.stream(st).filter(s -> s == CapacityResult.TrainStatus.SENDER_LIMITED).count());
    assertEquals(t.framesReceived(), Arrays.stream(r.trainReceived()).sum());
    if (t.trainsUsed() == 0) {
      assertTrue(Double.isNaN(r.estimate().userMbps()));
    } else {
      assertEquals(r.estimate().userMbps() * 1514 / 1472, r.estimate().frameMbps(), 1e-9);
      assertEquals(r.estimate().userMbps() * 1538 / 1472, r.estimate().wireMbps(), 1e-9);
      assertTrue(r.spread().p10Mbps() <= r.estimate().userMbps()
          && r.estimate().userMbps() <= r.spread().p90Mbps());
    }
    assertEquals("127.0.0.1", r.remoteAddress());
    assertEquals(responder.port(), r.remotePort());
    assertTrue(r.endEpochNanos() > r.startEpochNanos());
    assertFalse(r.cancelled());
    assertTrue(calls.get() > 0);
  }

  @Test
  void aCapacityTestCancelledBeforeItStartsSendsNoTrain() {
    ProbeControl control = new ProbeControl();
    control.cancel();
    CapacityResult r = Probe.capacity(
        CapacitySpec.defaults("127.0.0.1").withPort(responder.port()).withTrains(5, 20), control);
    assertTrue(r.cancelled());
    assertEquals(0, r.trains().trainsSent());
    assertEquals(5, r.trainStatus().length);
    assertTrue(Arrays.stream(r.trainStatus())
        .allMatch(s -> s == CapacityResult.TrainStatus.NOT_SENT));
    assertTrue(Double.isNaN(r.estimate().userMbps()));
  }

  @Test
  void aRateScanOverLoopbackFollowsTheOfferedRates() {
    AvailableBandwidthSpec spec = AvailableBandwidthSpec.defaults("127.0.0.1", 60)
        .withPort(responder.port()).withRates(20, 60, 20).withRefine(2)
        .withTiming(100_000_000L, 20_000_000L, 100_000_000L).withThresholds(0, 0, 5_000_000L);
    AtomicInteger calls = new AtomicInteger();
    AvailableBandwidthResult r =
        Probe.availableBandwidth(spec, new ProbeControl((done, total) -> calls.incrementAndGet()));
    r.steps().forEach(System.out::println);

    assertTrue(r.steps().size() >= 1 && r.steps().size() <= 5, "steps " + r.steps().size());
    AvailableBandwidthResult.Step first = r.steps().get(0);
    assertEquals(20.0, first.offeredMbps(), 1e-9);
    // The pacer never runs ahead of its schedule; a stall on a busy machine only makes it
    // slower (it moves the schedule rather than bursting), so only the upper bound is exact.
    assertTrue(first.sentMbps() > 0 && first.sentMbps() <= 20.0 * 1.05, "sent " + first.sentMbps());
    assertTrue(first.framesSent() >= 169 && first.framesSent() <= 171, "frames " + first.framesSent());
    assertFalse(first.refinement());
    assertEquals(1472, r.packetSize());
    assertEquals(66, r.wireOverheadBytes());
    assertEquals("127.0.0.1", r.remoteAddress());
    assertEquals(r.steps().size(), calls.get());
    if (r.steps().size() == 3 && !r.bracketed()) {
      // loopback carries 60 Mbit/s: nothing congested, so only a lower bound, the best step
      // received (how close that comes to 60 depends on the machine: the lab checks rates)
      double best = r.steps().stream().mapToDouble(s -> Math.min(s.receivedMbps(), s.sentMbps())).max().orElseThrow();
      assertTrue(r.lowerMbps() > 0 && r.lowerMbps() <= 60.0 * 1.05, "lower " + r.lowerMbps());
      assertEquals(best, r.lowerMbps(), 1e-6, "the lower bound is what the best step passed");
      assertTrue(Double.isNaN(r.upperMbps()) && Double.isNaN(r.estimateMbps()));
      assertTrue(r.steps().stream().noneMatch(AvailableBandwidthResult.Step::congested));
    }
    assertFalse(r.cancelled());
  }

  @Test
  void specsOutOfRangeAreRefusedWithTheFieldAndItsRange() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CapacitySpec.defaults("h").withSkip(98));
    assertEquals("skip must be in 1..97, was 98", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CapacitySpec.defaults("h").withTrains(1001, 10));
    assertEquals("trains must be in 1..1000, was 1001", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> CapacitySpec.defaults("h").withGapNanos(99_999));
    assertEquals("gapNanos must be in 100000..10000000000, was 99999", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> AvailableBandwidthSpec.defaults("h", 0));
    assertEquals("maxMbps must be in 0.1..100000.0, was 0.0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> AvailableBandwidthSpec.defaults("h", 100).withRates(0, 100, 1));
    assertEquals("coarse steps (100) + refine (4) must be at most 64", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> AvailableBandwidthSpec.defaults("h", 100).withThresholds(0, 0.6, 0));
    assertEquals("rateTolerance must be in 0.0..0.5, was 0.6", e.getMessage());
  }
}
