package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/**
 * Slots in a real responder's calendar through JNI (issue 24): granted, refused with the next
 * free start and its holder, moved within a window, released; a session of another client is
 * kept out of a reservation it would run into.
 */
class ProbeSlotTest {

  @Test
  void aResponderGrantsRefusesMovesAndReleasesSlots() throws Exception {
    try (ResponderProcess responder = new ResponderProcess("-v")) {
      int port = responder.port();
      Instant at = Instant.now().plusSeconds(30).truncatedTo(ChronoUnit.MILLIS);
      SlotAnswer a = Probe.reserve(new SlotRequest("127.0.0.1", port, at, at, Duration.ofSeconds(5),
          "exclusive", "point-a/bw@c"));
      assertTrue(a.granted(), a.toString());
      assertEquals(at, a.start());
      assertEquals(at.plusSeconds(5), a.end());

      SlotAnswer b = Probe.reserve(new SlotRequest("127.0.0.1", port, at.plusSeconds(1), at.plusSeconds(2),
          Duration.ofSeconds(1), "background", "point-b/rtt"));
      assertFalse(b.granted(), b.toString());
      assertEquals(at.plusSeconds(5), b.next());
      assertEquals("point-a/bw_c", b.heldBy()); // '@' is outside the control protocol's set

      SlotAnswer moved = Probe.reserve(new SlotRequest("127.0.0.1", port, at.plusSeconds(1), at.plusSeconds(6),
          Duration.ofSeconds(1), "background", "point-b/rtt"));
      assertTrue(moved.granted(), moved.toString());
      assertEquals(at.plusSeconds(5), moved.start());

      Probe.release("127.0.0.1", port, a.reservation());
      SlotAnswer again = Probe.reserve(new SlotRequest("127.0.0.1", port, at, at, Duration.ofSeconds(5),
          "exclusive", "point-c/bw"));
      assertTrue(again.granted(), again.toString());
      ProbeException gone = assertThrows(ProbeException.class,
          () -> Probe.release("127.0.0.1", port, a.reservation()));
      assertTrue(gone.getMessage().contains("no reservation"), gone.getMessage());
      assertEquals(1, a.sessions(), "a responder says how many sessions it serves at once");
      assertEquals(1, b.sessions(), "also when it refuses");
    }
    try (ResponderProcess shared = new ResponderProcess("-v", "--sessions", "3")) {
      Instant at = Instant.now().plusSeconds(30).truncatedTo(ChronoUnit.MILLIS);
      assertEquals(3, Probe.reserve(new SlotRequest("127.0.0.1", shared.port(), at, at, Duration.ofSeconds(1),
          "background", "point-a/rtt")).sessions());
    }
  }

  @Test
  void aSessionThatWouldRunIntoAnotherClientsReservationIsToldWhoHoldsIt() throws Exception {
    try (ResponderProcess responder = new ResponderProcess("-v")) {
      int port = responder.port();
      // another point (127.0.0.2, a raw control connection) holds the next 20 s
      long soon = System.currentTimeMillis() + 500;
      String granted = ask(port, "NMP/1 RESERVE start_ms=" + soon + " duration_ms=20000 class=normal holder=point-b/owd\n");
      assertTrue(granted.startsWith("NMP/1 OK reservation="), granted);
      ProbeException busy = assertThrows(ProbeException.class,
          () -> Probe.roundTrip(RoundTripSpec.defaults("127.0.0.1").withPort(port).withCount(3)));
      assertEquals(ProbeException.Reason.BUSY, busy.reason(), busy.getMessage());
      assertTrue(busy.getMessage().contains("reserved for point-b/owd"), busy.getMessage());
      // this point's own slot is refused while it is held, with the next free start
      SlotAnswer mine = Probe.reserve(new SlotRequest("127.0.0.1", port, Instant.now().plusSeconds(1),
          Instant.now().plusSeconds(2), Duration.ofSeconds(1), "background", "point-a/rtt"));
      assertFalse(mine.granted());
      assertEquals("point-b/owd", mine.heldBy());
      assertEquals(soon + 20000, mine.next().toEpochMilli());
      // malformed requests are refused, not crashed on
      assertTrue(ask(port, "NMP/1 RESERVE start_ms=1 duration_ms=0 class=normal holder=x\n").startsWith("NMP/1 ERR"));
      assertTrue(ask(port, "NMP/1 RELEASE reservation=zz\n").startsWith("NMP/1 ERR reason=request"));
      ProbeException far = assertThrows(ProbeException.class, () -> Probe.reserve(new SlotRequest("127.0.0.1", port,
          Instant.now().plus(Duration.ofHours(2)), Instant.now().plus(Duration.ofHours(2)), Duration.ofSeconds(1),
          "normal", "far")));
      assertTrue(far.getMessage().contains("start"), far.getMessage());
      // a hold for a test this host runs itself (from a loopback address), and no session gets in
      Instant later = Instant.ofEpochMilli(soon + 30000);
      assertTrue(Probe.reserve(new SlotRequest("127.0.0.1", port, later, later, Duration.ofSeconds(5), "exclusive",
          "point-a/bw:a:c", true)).granted());
      // the responder still serves: the holder's own session is admitted in its slot
      assertTrue(ask(port, "NMP/1 SESSION kind=rr frames=1 size=64 interval_ns=1000000 timeout_ms=100\n")
          .startsWith("NMP/1 OK port="));
    }
  }

  @Test
  void aKeyedResponderGrantsSlotsOnlyToClientsWithItsKey() throws Exception {
    java.nio.file.Path key = java.nio.file.Files.createTempFile("nmws-slot", ".key");
    byte[] secret = new byte[32];
    new java.security.SecureRandom().nextBytes(secret);
    java.nio.file.Files.write(key, secret);
    java.nio.file.Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    try (ResponderProcess responder = new ResponderProcess("-v", "--key-file", key.toString())) {
      Instant at = Instant.now().plusSeconds(20);
      SlotRequest wanted = new SlotRequest("127.0.0.1", responder.port(), at, at, Duration.ofSeconds(1), "normal", "k");
      // a raw RESERVE is challenged, and anything but a valid AUTH is refused
      String challenge = ask(responder.port(), "NMP/1 RESERVE start_ms=" + at.toEpochMilli()
          + " duration_ms=1000 class=normal holder=x\n");
      assertTrue(challenge.startsWith("NMP/1 CHALLENGE nonce="), challenge);
      ProbeException refused = assertThrows(ProbeException.class, () -> Probe.reserve(wanted));
      assertTrue(refused.getMessage().contains("key") || refused.getMessage().contains("auth"), refused.getMessage());
      Probe.useResponderKey(key.toString());
      try {
        assertTrue(Probe.reserve(wanted).granted());
      } finally {
        Probe.useResponderKey(null);
      }
    } finally {
      java.nio.file.Files.deleteIfExists(key);
    }
  }

  @Test
  void aHoldWithoutASessionIsRefusedFromAnotherHost() throws Exception {
    String addr = null;
    for (java.net.NetworkInterface nif : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
      for (java.net.InetAddress a : java.util.Collections.list(nif.getInetAddresses())) {
        if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && nif.isUp()) {
          addr = a.getHostAddress();
        }
      }
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(addr != null, "this host has a non-loopback IPv4 address");
    try (ResponderProcess responder = new ResponderProcess("-v", "-b", addr)) {
      long at = System.currentTimeMillis() + 5000;
      String answer = ask(addr, addr, responder.port(), "NMP/1 RESERVE start_ms=" + at
          + " duration_ms=1000 class=exclusive holder=x local=1\n");
      assertTrue(answer.startsWith("NMP/1 ERR reason=request") && answer.contains("local=1+only+from+this+host"), answer);
      assertTrue(ask(addr, addr, responder.port(), "NMP/1 RESERVE start_ms=" + at
          + " duration_ms=1000 class=exclusive holder=x\n").startsWith("NMP/1 OK reservation="));
    }
  }

  /** One request line from 127.0.0.2, as another point would send it; returns the answer line. */
  private static String ask(int port, String line) throws Exception {
    return ask("127.0.0.2", "127.0.0.1", port, line);
  }

  private static String ask(String from, String to, int port, String line) throws Exception {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(from, 0));
      s.connect(new InetSocketAddress(to, port), 2000);
      s.setSoTimeout(2000);
      s.getOutputStream().write(line.getBytes(StandardCharsets.US_ASCII));
      return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
    }
  }
}
