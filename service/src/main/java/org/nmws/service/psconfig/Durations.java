package org.nmws.service.psconfig;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** pSConfig's ISO 8601 durations: weeks, days, hours, minutes, seconds, each possibly fractional (P1W, PT0.5S, P1DT2H). */
final class Durations {
    private static final Pattern ISO = Pattern.compile(
            "P(?:(\\d+(?:\\.\\d+)?)W)?(?:(\\d+(?:\\.\\d+)?)D)?(?:T(?:(\\d+(?:\\.\\d+)?)H)?(?:(\\d+(?:\\.\\d+)?)M)?(?:(\\d+(?:\\.\\d+)?)S)?)?");
    private static final long[] MILLIS = {7 * 86_400_000L, 86_400_000L, 3_600_000L, 60_000L, 1000L};

    private Durations() {
    }

    /** @throws IllegalArgumentException naming the field for text that is not such a duration */
    static Duration parse(String field, String text) {
        Matcher m = ISO.matcher(text == null ? "" : text.trim());
        if (!m.matches() || text.trim().equals("P") || text.trim().endsWith("T")) {
            throw new IllegalArgumentException(field + " '" + text + "' is not an ISO 8601 duration (PT30S, P1D)");
        }
        BigDecimal ms = BigDecimal.ZERO;
        for (int i = 0; i < MILLIS.length; i++) {
            if (m.group(i + 1) != null) {
                ms = ms.add(new BigDecimal(m.group(i + 1)).multiply(BigDecimal.valueOf(MILLIS[i])));
            }
        }
        try {
            // exact: a duration past what a long of milliseconds holds is refused, never wrapped to a short one
            return Duration.ofMillis(ms.setScale(0, RoundingMode.DOWN).longValueExact());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(field + " '" + text + "' is longer than nmws can hold (292 million years)");
        }
    }

    /** A duration as plain seconds, NMWG's unit: "0.25", "30". */
    static String seconds(Duration d) {
        return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString();
    }
}
