package org.nmws.service.perfsonar;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** pScheduler's ISO 8601 forms: instants with an offset, durations in seconds (PT10S, PT0.000123S). */
final class Iso {
    private static final DateTimeFormatter INSTANT = DateTimeFormatter.ISO_OFFSET_DATE_TIME.withZone(ZoneOffset.UTC);

    private Iso() {
    }

    static String instant(Instant t) {
        return INSTANT.format(t);
    }

    /** A duration of this many seconds, in the seconds-only form pScheduler's Duration pattern takes. */
    static String seconds(double s) {
        if (!(s >= 0) || Double.isInfinite(s)) {
            throw new IllegalArgumentException("duration " + s + " s cannot be written in ISO 8601");
        }
        return "PT" + plain(s) + "S";
    }

    /** Nanoseconds as an ISO 8601 duration, exact to the nanosecond. */
    static String nanos(long ns) {
        return "PT" + BigDecimal.valueOf(ns, 9).stripTrailingZeros().toPlainString() + "S";
    }

    /** A number without exponent or trailing zeros ("0.1", "10"). */
    static String plain(double v) {
        return new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }
}
