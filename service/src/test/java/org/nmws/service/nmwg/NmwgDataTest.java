package org.nmws.service.nmwg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The hand-written value formats write exactly what String.format wrote before them (issue 25:
 * they replaced it for speed; answers must stay byte for byte the same).
 */
class NmwgDataTest {

    /** The format the datums used before issue 25. */
    private static String formatted(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6f", v).replaceAll("0+$", "");
    }

    @Test
    void numbersAreWrittenAsPercentPointSixFWithoutTrailingZerosForEveryKindOfValue() {
        double[] edges = {0.5, -0.5, 1.25, 0.0000004, 0.0000005, -0.0000005, 0.0000015, 2.5e-7, -1e-9, 1e-300,
            123456.1234565, 0.1 + 0.2, 1e15 + 0.5, -1e15 - 0.5, 999999.9999995, 999999.9999994, -999999.9999996, 1e6 - 1e-7, 0.0000095, 9.9999995, 0.9999995, 1e20, -3.75, 42.000001,
            Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MIN_VALUE,
            Double.MAX_VALUE, 0.0, -0.0};
        for (double v : edges) {
            assertEquals(formatted(v), NmwgData.number(v), "value " + v);
        }
        SplittableRandom random = new SplittableRandom(25);
        for (int i = 0; i < 40_000; i++) {
            double v = switch (i % 8) {
                case 0 -> random.nextDouble() * 1000; // RTTs in ms
                case 1 -> Math.round(random.nextDouble() * 1e7) / 1e7; // values near a rounding edge
                case 2 -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(-9, 16));
                // ties and near-ties at the sixth decimal, where the fast path gives way
                case 3 -> (random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L) + 0.5) / 1e6;
                case 4 -> (random.nextLong(0, 1_000_000_000L) + 0.5 + (random.nextDouble() - 0.5) * 4e-3) / 1e6;
                case 5 -> random.nextDouble() * 2e6 - 1e6; // up to the fast path's bound and past it
                case 6 -> (random.nextDouble() - 0.5) * 2e-6; // rounds to zero, either sign
                default -> Double.longBitsToDouble(random.nextLong());
            };
            assertEquals(formatted(v), NmwgData.number(v), "value " + v);
        }
    }

    @Test
    void timesAreSecondsWithNineDecimalsAlsoBeforeTheEpoch() {
        long[] nanos = {0, 1, 999_999_999, 1_000_000_000, 1_764_000_000_123_456_789L, -1, -1_000_000_000, -1_500_000_001,
            Long.MAX_VALUE, Long.MIN_VALUE};
        for (long n : nanos) {
            String expected = String.format(Locale.ROOT, "%d.%09d", Math.floorDiv(n, 1_000_000_000L),
                    Math.floorMod(n, 1_000_000_000L));
            assertEquals(expected, NmwgData.unixTime(n), "nanos " + n);
        }
        assertEquals("1764000000.000000042", NmwgData.unixTime(Instant.ofEpochSecond(1_764_000_000L, 42)));
    }
}
