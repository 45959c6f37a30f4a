package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OWAMP and TWAMP through JNI against the real nmprobe-owampd on 127.0.0.1, in each mode: the
 * engine's client kinds ("owamp", "twamp") and the server, both ways inside nmws.
 */
class ProbeOwampTest {

  @TempDir
  static Path dir;
  private static Path keys;
  private static OwampServerProcess server;

  @BeforeAll
  static void startServer() throws Exception {
    keys = dir.resolve("owamp-server.pfs");
    // owampd's pfs format: a key id and its hex key per line
    Files.writeString(keys, "# test keys\nalice 00112233445566778899aabbccddeeff\n"
        + "bob 0f1e2d3c4b5a69788796a5b4c3d2e1f0\n");
    Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
    server = new OwampServerProcess("--key-file", keys.toString(), "--modes",
        "open,authenticated,encrypted,mixed");
  }

  @AfterAll
  static void stopServer() throws Exception {
    assertEquals(0, server.stop(), "nmprobe-owampd exit code on SIGTERM; log:\n" + server.log());
  }

  private static OwampSpec owamp(String mode, String keyId, int count) throws Exception {
    return new OwampSpec(false, "127.0.0.1", server.owampPort(), count, 20, 1_000_000L,
        1_000_000_000L, mode, keyId, keyId == null ? null : keys.toString(), 0);
  }

  private static OwampSpec twamp(String mode, String keyId, int count) throws Exception {
    return new OwampSpec(true, "127.0.0.1", server.twampPort(), count, 20, 1_000_000L,
        1_000_000_000L, mode, keyId, keyId == null ? null : keys.toString(), 0);
  }

  private static void checkOwamp(OwampResult r, int count, String mode) {
    assertEquals(mode, r.mode());
    assertEquals(count, r.sent(), r.toString());
    assertEquals(count, r.received(), r.toString());
    assertEquals(0, r.lost());
    assertEquals(0, r.duplicates());
    assertEquals(count, r.frames().size(), "one record fetched back per packet");
    for (int i = 0; i < r.frames().size(); i++) {
      long owd = r.frames().valueNanos()[i];
      assertTrue(owd > 0 && owd < 50_000_000L, "loopback one-way delay " + owd + " ns");
    }
    assertTrue(r.minOwdMs() > 0 && r.medianOwdMs() < 50 && r.minOwdMs() <= r.medianOwdMs()
        && r.medianOwdMs() <= r.maxOwdMs(), r.toString());
    assertTrue(r.oneWayUncertaintyMs() > 0, "both error estimates are stated: " + r);
  }

  private static void checkTwamp(OwampResult r, int count, String mode) {
    assertEquals(mode, r.mode());
    assertEquals(count, r.sent(), r.toString());
    assertEquals(count, r.received(), r.toString());
    assertEquals(0, r.lost());
    assertTrue(r.minRttMs() > 0 && r.medianRttMs() < 50, r.toString());
    OwampResult.Frames f = r.frames();
    for (int i = 0; i < f.size(); i++) {
      // one clock at both ends: the two one-way delays add up to at most the round trip
      assertTrue(f.forwardNanos()[i] >= 0 && f.backwardNanos()[i] >= 0, "packet " + i);
      assertTrue(f.forwardNanos()[i] + f.backwardNanos()[i] <= f.valueNanos()[i] + 2_000,
          "packet " + i + ": " + f.forwardNanos()[i] + " + " + f.backwardNanos()[i] + " > " + f.valueNanos()[i]);
    }
  }

  @Test
  void owampInEachModeFetchesEveryRecordBack() throws Exception {
    checkOwamp(Probe.run(owamp("open", null, 200), new ProbeControl()), 200, "open");
    checkOwamp(Probe.run(owamp("authenticated", "alice", 100), new ProbeControl()), 100, "authenticated");
    checkOwamp(Probe.run(owamp("encrypted", "bob", 100), new ProbeControl()), 100, "encrypted");
  }

  @Test
  void owampFromTheServerInEachModeIsReceivedAndRecordedHere() throws Exception {
    String[][] modes = {{"open", null}, {"authenticated", "alice"}, {"encrypted", "bob"}};
    for (String[] m : modes) {
      OwampResult r = Probe.run(owamp(m[0], m[1], 100).fromServer(), new ProbeControl());
      // sent is the server's count from its Stop-Sessions, the rest this host's own records
      checkOwamp(r, 100, m[0]);
      assertEquals(0, r.skipped(), r.toString());
      for (int i = 0; i < r.frames().size(); i++) {
        assertEquals(i, r.frames().seq()[i], "arrival order on loopback");
        assertEquals(255, r.frames().ttl()[i], "the server sends with TTL 255, read by this host's kernel");
      }
    }
  }

  @Test
  void aDirectionOtherThanToOrFromIsRefusedBeforeAnythingRuns() {
    assertThrows(IllegalArgumentException.class, () -> new OwampSpec(false, "127.0.0.1", 861, 1, 0,
        1_000_000L, 1_000_000_000L, "open", null, null, 0, "both"));
    assertThrows(IllegalArgumentException.class, () -> OwampSpec.twamp("127.0.0.1").fromServer());
  }

  @Test
  void twampInEachModeReflectsEveryPacket() throws Exception {
    checkTwamp(Probe.run(twamp("open", null, 200), new ProbeControl()), 200, "open");
    checkTwamp(Probe.run(twamp("authenticated", "alice", 100), new ProbeControl()), 100, "authenticated");
    checkTwamp(Probe.run(twamp("encrypted", "bob", 100), new ProbeControl()), 100, "encrypted");
    checkTwamp(Probe.run(twamp("mixed", "alice", 100), new ProbeControl()), 100, "mixed");
  }

  @Test
  void aKeyTheServerDoesNotHoldIsRefusedWithAReason() throws Exception {
    Path wrong = dir.resolve("wrong.pfs");
    Files.writeString(wrong, "alice ffeeddccbbaa99887766554433221100\n");
    Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));
    OwampSpec spec = new OwampSpec(false, "127.0.0.1", server.owampPort(), 10, 0, 1_000_000L,
        1_000_000_000L, "authenticated", "alice", wrong.toString(), 0);
    ProbeException e = assertThrows(ProbeException.class, () -> Probe.run(spec, new ProbeControl()));
    assertTrue(e.getMessage().length() > 10, "a refusal says why: " + e.getMessage());
  }
}
