package org.nmws.service.nmwg;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/** Time values as NMWG clients send them: unix seconds (with a fraction) or ISO 8601. */
final class Times {
    private Times() {
    }

    static Instant parse(String name, String text) throws NmwgException {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            throw new NmwgException(ErrorCodes.PARAMETER, "time parameter '" + name + "' is empty");
        }
        try {
            if (t.matches("-?\\d{1,12}(\\.\\d{1,9})?")) {
                BigDecimal secs = new BigDecimal(t);
                long s = secs.longValue();
                int nanos = secs.subtract(BigDecimal.valueOf(s)).movePointRight(9).intValue();
                return Instant.ofEpochSecond(s, nanos);
            }
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new NmwgException(ErrorCodes.PARAMETER, "time parameter '" + name + "' is '" + t
                    + "': expected unix seconds or ISO 8601 (2026-11-21T10:00:00Z)");
        }
    }
}
