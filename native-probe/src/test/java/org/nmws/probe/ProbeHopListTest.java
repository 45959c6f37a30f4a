package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The hop list through JNI: loopback is one hop away and answers with port unreachable. */
class ProbeHopListTest {

  @Test
  void loopbackIsReachedInOneHopWithEveryProbeAnswered() {
    HopListResult r = Probe.hopList(HopListSpec.defaults("127.0.0.1").withMaxTtl(5));
    System.out.println(r.addresses() + " reached=" + r.reached() + " in " + r.elapsedMs() + " ms");
    assertTrue(r.reached());
    assertEquals(1, r.hopCount());
    assertEquals(List.of("127.0.0.1"), r.addresses());
    HopListResult.Hop h = r.hops().get(0);
    assertTrue(h.destination());
    assertEquals(3, h.icmpType());
    assertEquals(3, h.icmpCode());
    assertEquals(3, h.answered());
    // review: no timed assertions (RTT or elapsed-time ceilings); every probe answered and its
    // RTT is a real, positive, finite number
    assertEquals(3, h.rttMs().length);
    for (double rtt : h.rttMs()) {
      assertTrue(rtt > 0 && Double.isFinite(rtt), "rtt " + rtt);
    }
    assertEquals(1, r.hops().size(), "no TTL beyond the destination is listed");
    assertTrue(r.elapsedMs() > 0 && Double.isFinite(r.elapsedMs()), "elapsed " + r.elapsedMs());
    assertFalse(r.cancelled());
  }

  @Test
  void namesAreLookedUpWhenAsked() {
    HopListResult r = Probe.hopList(
        HopListSpec.defaults("127.0.0.1").withMaxTtl(2).withResolveNames(true));
    assertTrue(r.hops().get(0).name().isPresent(), r.hops().toString());
  }

  @Test
  void anUnknownNameIsAResolveFailure() {
    ProbeException e = assertThrows(ProbeException.class,
        () -> Probe.hopList(HopListSpec.defaults("no-such-host.invalid")));
    assertEquals(ProbeException.Reason.RESOLVE, e.reason());
  }

  @Test
  void outOfRangeSpecsNameTheField() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> HopListSpec.defaults("127.0.0.1").withMaxTtl(65));
    assertEquals("maxTtl must be in 1..64, was 65", e.getMessage());
  }
}
