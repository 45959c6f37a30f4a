package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Validation of test parameters happens in Java, before any native call. */
class RoundTripSpecTest {

  @Test
  void defaultsAreTenFramesOfSixtyFourBytesOneMillisecondApart() {
    RoundTripSpec s = RoundTripSpec.defaults("example.org");
    assertEquals(new RoundTripSpec("example.org", 8700, 10, 64, 1_000_000L, 1_000_000_000L, 0), s);
  }

  private static void rejects(String message, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertEquals(message, e.getMessage());
  }

  @Test
  void outOfRangeValuesAreRejectedWithTheFieldAndItsRange() {
    RoundTripSpec s = RoundTripSpec.defaults("127.0.0.1");
    rejects("packetSize must be in 32..9000, was 31", () -> s.withPacketSize(31));
    rejects("packetSize must be in 32..9000, was 9001", () -> s.withPacketSize(9001));
    rejects("port must be in 1..65535, was 0", () -> s.withPort(0));
    rejects("port must be in 1..65535, was 65536", () -> s.withPort(65536));
    rejects("count must be in 1..1000000, was 0", () -> s.withCount(0));
    rejects("intervalNanos must be in 0..60000000000, was -1", () -> s.withIntervalNanos(-1));
    rejects("timeoutNanos must be in 0..60000000000, was 60000000001", () -> s.withTimeoutNanos(60_000_000_001L));
    rejects("ttl must be in 0..255, was 256", () -> s.withTtl(256));
  }

  @Test
  void blankOrPaddedHostsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> RoundTripSpec.defaults(""));
    assertThrows(IllegalArgumentException.class, () -> RoundTripSpec.defaults(" host"));
    assertThrows(IllegalArgumentException.class, () -> RoundTripSpec.defaults(null));
  }

  @Test
  void boundaryValuesAreAccepted() {
    RoundTripSpec s = RoundTripSpec.defaults("::1").withPacketSize(32).withTtl(255).withIntervalNanos(0);
    assertEquals(32, s.packetSize());
    assertEquals(9000, s.withPacketSize(9000).packetSize());
  }
}
