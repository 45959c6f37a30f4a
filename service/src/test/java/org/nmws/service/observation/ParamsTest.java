package org.nmws.service.observation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the service takes as a number or a flag: plain ASCII decimals and true/false only. */
class ParamsTest {

    @Test
    void numbersInOtherScriptsHexFloatsAndNonFiniteValuesAreRefused() {
        for (String bad : new String[] {"\u0663", "\u0661\u0660", "0x1p3", "Infinity", "NaN", "1d", "1f", " 1 2", "--1"}) {
            assertThrows(IllegalArgumentException.class, () -> Params.decimal(Map.of("x", bad), "x", 0, -1e9, 1e9), bad);
            assertThrows(IllegalArgumentException.class, () -> Params.integer(Map.of("x", bad), "x", 0, -1000, 1000), bad);
        }
        assertEquals(0.25, Params.decimal(Map.of("x", "2.5e-1"), "x", 0, 0, 1), 0.0);
        assertEquals(-7, Params.integer(Map.of("x", " -7 "), "x", 0, -10, 10));
    }

    @Test
    void flagsAreTrueOrFalseAndNothingElse() {
        assertTrue(Params.bool(Map.of("f", "TRUE"), "f"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Params.bool(Map.of("f", "maybe"), "f"));
        assertTrue(e.getMessage().contains("expected true or false"), e.getMessage());
    }

    @Test
    void errorsQuoteAClientsValueOnlySoFar() {
        String huge = "9".repeat(100_000);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Params.integer(Map.of("count", huge), "count", 0, 0, 10));
        assertTrue(e.getMessage().length() < 300, "message of " + e.getMessage().length() + " characters");
        assertTrue(e.getMessage().contains("100000 characters"), e.getMessage());
    }

    @Test
    void aNonzeroLiteralThatUnderflowsToZeroIsRefused() {
        // issue 21: 1e-999 was read as 0.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Params.decimal(Map.of("interval", "1e-999"), "interval", 1, 0, 10));
        assertEquals("parameter interval is '1e-999': too small to be told from 0; must be 0.0..10.0", e.getMessage());
        assertEquals(0.0, Params.decimal(Map.of("interval", "0e-999"), "interval", 1, 0, 10), 0.0);
        assertEquals(0.0, Params.decimal(Map.of("interval", "0.000"), "interval", 1, 0, 10), 0.0);
    }
}
