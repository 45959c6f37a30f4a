package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The packed-field reader: every type round trips; malformed input is a clear ProbeException. */
class NativeRecordTest {

  private static byte[] everyType() {
    return new NativeSpecWriter()
        .i64("i", -42)
        .bool("b", true)
        .f64("f", Double.NaN)
        .str("s", "h\u00e9llo")
        .i32s("t.i32", new int[] {-1, 0, Integer.MAX_VALUE})
        .i64s("t.i64", new long[] {Long.MIN_VALUE, 5})
        .f64s("t.f64", new double[] {0.5, -1e300})
        .strs("t.strs", new String[] {"a", "", "10.0.0.1"})
        .toByteArray();
  }

  @Test
  void everyFieldTypeRoundTrips() {
    NativeRecord r = NativeRecord.parse(everyType());
    assertEquals(-42L, r.i64("i"));
    assertEquals(-42, r.i32("i"));
    assertTrue(r.bool("b"));
    assertTrue(Double.isNaN(r.f64("f")));
    assertEquals("h\u00e9llo", r.str("s"));
    assertArrayEquals(new int[] {-1, 0, Integer.MAX_VALUE}, r.ints("t.i32"));
    assertArrayEquals(new long[] {-1, 0, Integer.MAX_VALUE}, r.longs("t.i32"));
    assertArrayEquals(new long[] {Long.MIN_VALUE, 5}, r.longs("t.i64"));
    assertArrayEquals(new double[] {0.5, -1e300}, r.doubles("t.f64"));
    assertArrayEquals(new String[] {"a", "", "10.0.0.1"}, r.strings("t.strs"));
    assertTrue(r.has("s"));
    assertFalse(r.has("absent"));
    assertEquals(0, NativeRecord.parse(new byte[0]).rows());
  }

  @Test
  void aMissingFieldIsAProbeExceptionNamingIt() {
    NativeRecord r = NativeRecord.parse(everyType());
    ProbeException e = assertThrows(ProbeException.class, () -> r.f64("minRttMs"));
    assertEquals("engine result lacks field minRttMs", e.getMessage());
    assertEquals(ProbeException.Reason.INTERNAL, e.reason());
  }

  @Test
  void aMistypedFieldIsAProbeExceptionNamingBothTypes() {
    NativeRecord r = NativeRecord.parse(everyType());
    ProbeException e = assertThrows(ProbeException.class, () -> r.i64("f"));
    assertEquals("engine result field f is F64, not I64", e.getMessage());
    e = assertThrows(ProbeException.class, () -> r.ints("t.i64"));
    assertEquals("engine result field t.i64[0] = " + Long.MIN_VALUE + " does not fit an int",
        e.getMessage());
  }

  @Test
  void columnsOfDifferentLengthsAreRefused() {
    NativeRecord r = NativeRecord.parse(everyType());
    ProbeException e = assertThrows(ProbeException.class, () -> r.rows("t.i32", "t.i64"));
    assertEquals("engine result column t.i64 has 2 rows, not 3", e.getMessage());
  }

  @Test
  void aBufferCutAtAnyByteIsRefusedWithAClearExceptionNotAnIndexError() {
    byte[] full = everyType();
    // cuts at a field boundary leave a shorter valid buffer; all others must be refused
    int boundaries = 0;
    for (int cut = 0; cut < full.length; cut++) {
      byte[] b = Arrays.copyOf(full, cut);
      try {
        NativeRecord.parse(b);
        boundaries++;
      } catch (ProbeException e) {
        assertTrue(e.getMessage().startsWith("packed field at byte "), e.getMessage());
      }
    }
    assertEquals(8, boundaries); // the empty buffer and one after each of the first 7 fields
  }

  @Test
  void hostileLengthsAndTypesAreRefused() {
    byte[] hugeCount = {5, 1, 'a', (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f};
    ProbeException e = assertThrows(ProbeException.class, () -> NativeRecord.parse(hugeCount));
    assertTrue(e.getMessage().contains("run past the end"), e.getMessage());
    byte[] negativeCount = {7, 1, 'a', (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    assertThrows(ProbeException.class, () -> NativeRecord.parse(negativeCount));
    byte[] badType = {9, 1, 'x', 0, 0, 0, 0, 0, 0, 0, 0};
    e = assertThrows(ProbeException.class, () -> NativeRecord.parse(badType));
    assertEquals("packed field 'x' at byte 0: unknown type 9", e.getMessage());
    byte[] badName = {1, 1, '-', 0, 0, 0, 0, 0, 0, 0, 0};
    e = assertThrows(ProbeException.class, () -> NativeRecord.parse(badName));
    assertEquals("packed field at byte 0: bad name", e.getMessage());
    byte[] full = everyType();
    for (int i = 0; i < full.length; i++) {
      for (byte v : new byte[] {0, 8, 0x7f, (byte) 0xff}) {
        byte[] b = full.clone();
        b[i] = v;
        try {
          NativeRecord.parse(b);
        } catch (ProbeException expected) {
          // refused with a message; anything else (an index error) fails the test
        }
      }
    }
  }
}
