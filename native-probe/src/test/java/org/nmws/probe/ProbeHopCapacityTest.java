package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Per-hop capacity through JNI on loopback (issue 4 item 3): loopback is one hop that answers
 * with port unreachable, so every frame is answered; the figures are accounting, not accuracy
 * (the namespace lab checks accuracy).
 */
class ProbeHopCapacityTest {

  private static final HopCapacitySpec LOOP =
      HopCapacitySpec.defaults("127.0.0.1").withMaxTtl(3).withTrains(5, 8).withFirstPort(41100);

  @Test
  void loopbackIsOneHopWhoseEveryFrameIsAnsweredAndEveryTrainAccounted() {
    HopCapacityResult r = Probe.hopCapacity(LOOP);
    System.out.println(r);
    assertTrue(r.discovered());
    assertTrue(r.reached());
    assertEquals(1, r.hopCount());
    assertEquals("127.0.0.1", r.destination());
    assertEquals(5, r.trains());
    assertEquals(8, r.trainLength());
    assertEquals(4, r.skip());
    assertEquals(1472, r.packetSize());
    assertEquals(42, r.frameOverheadBytes());
    assertEquals(66, r.wireOverheadBytes());
    assertFalse(r.cancelled());
    assertEquals(1, r.hops().size(), "no TTL beyond the destination");
    HopCapacityResult.HopEstimate h = r.hops().get(0);
    assertEquals(1, h.ttl());
    assertEquals(Optional.of("127.0.0.1"), h.address());
    assertTrue(h.destination());
    assertEquals(40, h.answers().probesSent());
    assertEquals(40, h.answers().replies());
    assertTrue(h.answers().kernelStamped() <= 40);
    assertEquals(5, h.trains().sent());
    int counted = h.lowerBound() ? h.trains().used() : h.trains().used() + h.trains().senderLimited();
    assertEquals(5, counted + h.trains().missing() + h.trains().reordered());
    assertEquals(5, h.trainStatus().size());
    assertEquals(5, h.trainFrameMbps().size());
    assertFalse(h.trainStatus().contains(HopCapacityResult.TrainStatus.NOT_SENT));
    if (h.trains().used() > 0) {
      double f = h.estimate().frameMbps();
      assertTrue(f > 0 && Double.isFinite(f), "frame " + f);
      assertEquals(f * 1472 / 1514, h.estimate().userMbps(), 1e-9 * f);
      assertEquals(f * 1538 / 1514, h.estimate().wireMbps(), 1e-9 * f);
    }
    assertTrue(r.endEpochNanos() >= r.startEpochNanos());
  }

  @Test
  void givenHopsBeyondTheDestinationStopAtIt() {
    HopCapacityResult r = Probe.hopCapacity(LOOP.withHops(3).withTrains(2, 4));
    assertFalse(r.discovered());
    assertTrue(r.reached());
    assertEquals(1, r.hops().size());
    assertEquals(8, r.hops().get(0).answers().probesSent());
  }

  @Test
  void cancelledBeforeTheStartGivesAConsistentEmptyResult() {
    ProbeControl c = new ProbeControl();
    c.cancel();
    HopCapacityResult r = Probe.hopCapacity(LOOP, c);
    assertTrue(r.cancelled());
    assertEquals(0, r.hops().size());
    ProbeControl c2 = new ProbeControl();
    c2.cancel();
    HopCapacityResult g = Probe.hopCapacity(LOOP.withHops(2), c2);
    assertTrue(g.cancelled());
    assertEquals(1, g.hops().size());
    HopCapacityResult.HopEstimate h = g.hops().get(0);
    assertEquals(0, h.trains().sent());
    assertTrue(Double.isNaN(h.estimate().frameMbps()));
    assertEquals(5, h.trainStatus().size());
    assertTrue(h.trainStatus().stream().allMatch(s -> s == HopCapacityResult.TrainStatus.NOT_SENT));
  }

  @Test
  void cancelledFromTheProgressListenerKeepsTheTrainsSoFar() {
    AtomicInteger calls = new AtomicInteger();
    ProbeControl[] holder = new ProbeControl[1];
    holder[0] = new ProbeControl((done, total) -> {
      calls.incrementAndGet();
      holder[0].cancel();
    });
    HopCapacityResult r = Probe.hopCapacity(LOOP.withHops(1).withTrains(50, 8), holder[0]);
    assertTrue(r.cancelled());
    assertTrue(calls.get() >= 1);
    HopCapacityResult.HopEstimate h = r.hops().get(0);
    long sent = h.trainStatus().stream()
        .filter(s -> s != HopCapacityResult.TrainStatus.NOT_SENT).count();
    assertEquals(h.trains().sent(), sent);
    assertTrue(sent >= 1 && sent < 50, "sent " + sent);
  }

  @Test
  void cancelledAtAnyMomentTheResultStaysConsistent() throws Exception {
    for (int k = 0; k < 8; k++) {
      ProbeControl c = new ProbeControl();
      long delayMicros = k * 700L;
      Thread t = new Thread(() -> {
        try {
          Thread.sleep(delayMicros / 1000, (int) (delayMicros % 1000) * 1000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        c.cancel();
      }, "hopcap-cancel-" + k);
      t.start();
      HopCapacityResult r = Probe.hopCapacity(LOOP.withTrains(20, 8), c);
      t.join();
      for (HopCapacityResult.HopEstimate h : r.hops()) {
        assertEquals(20, h.trainStatus().size());
        long sent = h.trainStatus().stream()
            .filter(s -> s != HopCapacityResult.TrainStatus.NOT_SENT).count();
        assertEquals(h.trains().sent(), sent);
        assertTrue(h.answers().replies() <= h.answers().probesSent());
      }
    }
  }

  @Test
  void outOfRangeSpecsNameTheField() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LOOP.withSkip(7));
    assertEquals("skip must be in -1..6, was 7", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> LOOP.withTrains(5, 1));
    assertEquals("trainLength must be in 2..1000, was 1", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> LOOP.withHops(65));
    assertEquals("hops must be in 0..64, was 65", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> LOOP.withHops(64).withTrains(1000, 1000));
    assertEquals("(hops or maxTtl) * trains * trainLength must be in 2..2000000, was 64000000",
        e.getMessage());
  }

  @Test
  void anUnknownNameIsAResolveFailure() {
    ProbeException e = assertThrows(ProbeException.class,
        () -> Probe.hopCapacity(HopCapacitySpec.defaults("no-such-host.invalid")));
    assertEquals(ProbeException.Reason.RESOLVE, e.reason());
  }
}
