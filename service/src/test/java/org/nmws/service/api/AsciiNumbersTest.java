package org.nmws.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.TypeMismatchException;
import org.springframework.web.bind.WebDataBinder;

/** Issue 21: query parameters took 0x10, #10, Arabic-Indic and full-width digits as numbers. */
class AsciiNumbersTest {
    private final WebDataBinder binder = new WebDataBinder(null);

    AsciiNumbersTest() {
        AsciiNumbers.register(binder);
    }

    @Test
    void numbersInAsciiDigitsBind() {
        assertEquals(12, binder.convertIfNecessary(" 12 ", int.class));
        assertEquals(-7L, binder.convertIfNecessary("-7", Long.class));
        assertEquals(1e9, binder.convertIfNecessary("1e9", double.class));
    }

    @Test
    void hexOtherScriptsAndNonFiniteValuesDoNot() {
        for (String bad : List.of("0x10", "#10", "\u0661\u0662", "\uff11\uff12", "1.5", "99999999999")) {
            TypeMismatchException e = assertThrows(TypeMismatchException.class, () -> binder.convertIfNecessary(bad, int.class), bad);
            assertEquals(IllegalArgumentException.class, e.getCause().getClass(), bad);
        }
        for (String bad : List.of("0x10", "NaN", "Infinity", "0x1p3", "\u0661", "1e999")) {
            assertThrows(TypeMismatchException.class, () -> binder.convertIfNecessary(bad, Double.class), bad);
        }
        TypeMismatchException e = assertThrows(TypeMismatchException.class, () -> binder.convertIfNecessary("0x10", long.class));
        assertEquals("'0x10' is not an integer in ASCII digits", e.getCause().getMessage());
    }
}
