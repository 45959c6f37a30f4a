package org.nmws.service.observation;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * Time values as NM-WG clients send them, in every dialect: unix seconds (with a fraction) or
 * ISO 8601. Only times the archive can hold are accepted: it keeps epoch nanoseconds in a
 * long, 1677-09-21 to 2262-04-11.
 */
public final class Times {
    /** The earliest and latest instants that fit in a long of epoch nanoseconds. */
    public static final Instant MIN = Instant.ofEpochSecond(0, Long.MIN_VALUE);
    public static final Instant MAX = Instant.ofEpochSecond(0, Long.MAX_VALUE);

    private Times() {
    }

    /**
     * Parses unix seconds or ISO 8601.
     *
     * @throws IllegalArgumentException naming {@code name} when the text is neither or is out of range
     */
    public static Instant parse(String name, String text) {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("time parameter '" + name + "' is empty");
        }
        Instant i;
        try {
            if (t.matches("-?\\d{1,12}(\\.\\d{1,9})?")) {
                BigDecimal secs = new BigDecimal(t);
                long s = secs.longValue();
                i = Instant.ofEpochSecond(s, secs.subtract(BigDecimal.valueOf(s)).movePointRight(9).intValue());
            } else {
                i = OffsetDateTime.parse(t).toInstant();
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("time parameter '" + name + "' is '" + t
                    + "': expected unix seconds or ISO 8601 (2026-11-21T10:00:00Z)");
        }
        if (i.isBefore(MIN) || i.isAfter(MAX)) {
            throw new IllegalArgumentException("time parameter '" + name + "' is '" + t + "': outside " + MIN + " .. " + MAX);
        }
        return i;
    }
}
