package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * STAMP through JNI against the real responder's reflector on 127.0.0.1: the kind added on
 * top of the kinds table (one C engine file, one spec record and its result).
 */
class ProbeStampTest {

  private static ResponderProcess responder;

  @BeforeAll
  static void startResponder() throws Exception {
    responder = new ResponderProcess("--stamp-port", "0", "--stamp-stateful");
  }

  @AfterAll
  static void stopResponder() throws Exception {
    assertEquals(0, responder.stop(), "responder exit code on SIGTERM; log:\n" + responder.log());
  }

  @Test
  void measuresRoundTripAndBothOneWayDelaysToTheReflector() throws Exception {
    StampSpec spec = new StampSpec("127.0.0.1", responder.stampPort(), 300, 100, 200_000L,
        500_000_000L, 9, false, 0, 1_000_000_000L);
    StampResult r = Probe.run(spec, new ProbeControl());
    assertEquals(300, r.sent());
    assertEquals(300, r.received(), r.toString());
    assertEquals(0, r.lost());
    assertEquals(0, r.forwardLost());
    assertTrue(r.minRttMs() > 0 && r.medianRttMs() < 5, "loopback round trip " + r.medianRttMs());
    assertTrue(r.medianRttMs() <= r.p99RttMs() && r.p99RttMs() <= r.maxRttMs(), r.toString());
    // One clock at both ends: the one-way delays add up to the round trip, packet by packet.
    StampResult.Frames f = r.frames();
    for (int i = 0; i < f.size(); i++) {
      assertTrue(Math.abs(f.forwardNanos()[i] + f.backwardNanos()[i] - f.rttNanos()[i]) <= 2,
          "packet " + i);
      assertTrue(f.senderTtl()[i] > 0, "the reflector reports the TTL it saw");
    }
    assertTrue(r.oneWayUncertaintyMs() >= r.senderErrorMs() && r.senderErrorMs() > 0, r.toString());
    assertEquals("127.0.0.1", r.remoteAddress());
  }

  @Test
  void aHostWithoutAReflectorIsGivenUpAfterThreePackets() throws Exception {
    try (DatagramSocket quiet = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      quiet.setSoTimeout(200);
      StampSpec spec = new StampSpec("127.0.0.1", quiet.getLocalPort(), 100_000, 44, 1_000L,
          0L, 1, false, 0, 20_000_000L);
      ProbeException e = assertThrows(ProbeException.class, () -> Probe.run(spec, new ProbeControl()));
      assertEquals(ProbeException.Reason.TIMEOUT, e.reason(), e.getMessage());
      assertTrue(e.getMessage().contains("nothing more was sent"), e.getMessage());
      int got = 0;
      try {
        for (;;) {
          quiet.receive(new DatagramPacket(new byte[64], 64));
          got++;
        }
      } catch (SocketTimeoutException drained) {
        // every packet that arrived has been counted
      }
      assertEquals(3, got, "packets that reached a host running no reflector");
    }
  }

  @Test
  void specsOutOfRangeAreRefusedBeforeTheEngine() {
    assertThrows(IllegalArgumentException.class,
        () -> new StampSpec("127.0.0.1", 862, 10, 43, 0, 0, 1, false, 0, 1_000_000_000L));
    assertThrows(IllegalArgumentException.class,
        () -> new StampSpec("127.0.0.1", 862, 10, 44, 0, 0, 65536, false, 0, 1_000_000_000L));
    // authenticated packets are 112 bytes at least; a key id is printable and has no spaces
    assertThrows(IllegalArgumentException.class,
        () -> new StampSpec("127.0.0.1", 862, 10, 100, 0, 0, 1, false, 0, 1_000_000_000L, "lab"));
    assertThrows(IllegalArgumentException.class,
        () -> new StampSpec("127.0.0.1", 862, 10, 112, 0, 0, 1, false, 0, 1_000_000_000L, "a b"));
  }

  @Test
  void authenticatedModeMeasuresToAKeyedReflectorAndEachModeAgainstTheOtherSaysWhy()
      throws Exception {
    Path keys = Files.createTempFile("stamp-keys", ".pfs",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(keys, "# test keys\nlab " + "5a".repeat(32) + "\n");
    try (ResponderProcess keyed =
        new ResponderProcess("--stamp-port", "0", "--stamp-key-file", keys.toString())) {
      ProbeException none = assertThrows(ProbeException.class, () -> Probe.run(
          new StampSpec("127.0.0.1", keyed.stampPort(), 10, 112, 200_000L, 500_000_000L, 9, false, 0,
              1_000_000_000L, "lab"), new ProbeControl()));
      assertTrue(none.getMessage().contains("no STAMP key file is set"), none.getMessage());
      Probe.useStampKeys(keys.toString());
      StampResult r = Probe.run(new StampSpec("127.0.0.1", keyed.stampPort(), 200, 112, 200_000L,
          500_000_000L, 9, false, 0, 1_000_000_000L, "lab"), new ProbeControl());
      assertEquals(200, r.received(), r.toString());
      assertEquals(0, r.authFailed());
      assertTrue(r.minRttMs() > 0 && r.medianRttMs() < 5, "loopback round trip " + r.medianRttMs());
      // an open sender to the keyed reflector: nothing answered, and the likely reason named
      ProbeException open = assertThrows(ProbeException.class, () -> Probe.run(
          new StampSpec("127.0.0.1", keyed.stampPort(), 10, 44, 200_000L, 0L, 9, false, 0,
              20_000_000L), new ProbeControl()));
      assertEquals(ProbeException.Reason.TIMEOUT, open.reason(), open.getMessage());
      assertTrue(open.getMessage().contains("the reflector requires authentication"),
          open.getMessage());
      // an authenticated sender to the open reflector: its answer comes in the open layout
      ProbeException auth = assertThrows(ProbeException.class, () -> Probe.run(
          new StampSpec("127.0.0.1", responder.stampPort(), 10, 112, 200_000L, 0L, 9, false, 0,
              200_000_000L, "lab"), new ProbeControl()));
      assertEquals(ProbeException.Reason.PROTOCOL, auth.reason(), auth.getMessage());
      assertTrue(auth.getMessage().contains("the reflector answered in unauthenticated mode"),
          auth.getMessage());
      assertEquals(0, keyed.stop());
    } finally {
      Probe.useStampKeys(null);
      Files.delete(keys);
    }
  }
}
