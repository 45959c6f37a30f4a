package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The clock state through JNI, against what the kernel exposes. */
class ProbeClockStateTest {

  private static final Path SOURCE =
      Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");

  @Test
  void theClockSourceIsTheOneSysfsNames() throws IOException {
    ClockState c = Probe.clockState();
    System.out.println(c);
    if (Files.isReadable(SOURCE)) {
      assertEquals(Files.readString(SOURCE).trim(), c.source());
    }
  }

  @Test
  void synchronisedAgreesWithTheUnsyncBitAndTheStateName() {
    ClockState c = Probe.clockState();
    if ((c.status() & ClockState.STA_UNSYNC) != 0) {
      assertEquals(false, c.synchronised());
    }
    assertEquals(!c.synchronised(), c.state().equals("unsynchronised"), c.toString());
    assertTrue(c.maxErrorUs() >= 0 && c.estErrorUs() >= 0, c.toString());
  }
}
