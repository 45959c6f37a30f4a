package org.nmws.client.cli;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Numbers and times as a person reads them in a table (issue 26): counts as integers, never an
 * exponent, bytes and rates scaled to a unit (kB/MB/GB, kbit/s/Mbit/s/Gbit/s), times as local
 * ISO times to the second. --json keeps every digit the service wrote; these are for tables only.
 */
final class Values {
    /** Figures keep 4 significant digits in a table. */
    private static final MathContext FIGURE = new MathContext(4);
    private static final String[] BYTE_UNITS = {"bytes", "kB", "MB", "GB", "TB"};
    private static final String[] RATE_UNITS = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};

    private Values() {
    }

    /** A value and the unit to print beside it. */
    record Shown(String value, String unit) {
    }

    /** The number a string holds, or empty when it holds none (a name, a date). */
    static Optional<BigDecimal> decimal(String s) {
        if (s == null || s.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new BigDecimal(s.trim()));
        } catch (NumberFormatException notANumber) {
            return Optional.empty();
        }
    }

    /**
     * A figure with its unit as the service labelled it: bytes and Mbit/s scaled to a readable
     * unit, everything else to 4 significant digits without exponent (an integer stays whole).
     * A value that is not a number is shown as it came.
     */
    static Shown figure(String value, String unit) {
        Optional<BigDecimal> d = decimal(value);
        String u = unit == null ? "" : unit;
        if (d.isEmpty()) {
            return new Shown(value, u);
        }
        return switch (u) {
            case "bytes" -> scaled(d.get(), 0, BYTE_UNITS);
            case "Mbit/s" -> scaled(d.get().movePointRight(6), 0, RATE_UNITS);
            case "bit/s" -> scaled(d.get(), 0, RATE_UNITS);
            default -> new Shown(plain(d.get()), u);
        };
    }

    /** Bytes with their unit in one cell: "10.72 GB". */
    static String bytes(BigDecimal b) {
        Shown s = scaled(b, 0, BYTE_UNITS);
        return s.value() + " " + s.unit();
    }

    /** A rate in bit/s with its unit in one cell: "48.2 Mbit/s". */
    static String bitsPerSecond(BigDecimal b) {
        Shown s = scaled(b, 0, RATE_UNITS);
        return s.value() + " " + s.unit();
    }

    /** Divides by 1000 until under 1000 (or the largest unit), then 4 significant digits. */
    private static Shown scaled(BigDecimal v, int step, String[] units) {
        BigDecimal thousand = BigDecimal.valueOf(1000);
        while (v.abs().compareTo(thousand) >= 0 && step < units.length - 1) {
            v = v.divide(thousand);
            step++;
        }
        return new Shown(plain(v), units[step]);
    }

    /** 4 significant digits, never an exponent, never fewer than the whole part's digits; 2000.0 is 2000. */
    static String plain(BigDecimal d) {
        BigDecimal r = d.abs().compareTo(BigDecimal.valueOf(1000)) >= 0 ? d.setScale(0, RoundingMode.HALF_EVEN) : d.round(FIGURE);
        String s = r.stripTrailingZeros().toPlainString();
        return s.equals("-0") ? "0" : s;
    }

    /** A number given as text to print plainly, or the text itself when it is not a number. */
    static String plain(String s) {
        return decimal(s).map(Values::plain).orElse(s);
    }

    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

    /** An instant as local ISO time to the second, with the offset: 2026-11-26T11:02:03+01:00 (Z in UTC). */
    static String time(Instant t) {
        return OffsetDateTime.ofInstant(t.truncatedTo(ChronoUnit.SECONDS), ZoneId.systemDefault()).format(LOCAL);
    }

    /** Seconds since 1970 (NMWG's unix timeType, fractions allowed) as local ISO time, or the text as it came. */
    static String unixTime(String seconds) {
        return decimal(seconds).map(s -> time(Instant.ofEpochSecond(s.longValue()))).orElse(seconds);
    }

    /** An ISO 8601 instant, or seconds since 1970 as Jackson writes an Instant, as local ISO time; else as it came. */
    static String anyTime(String s) {
        try {
            return time(Instant.parse(s));
        } catch (java.time.format.DateTimeParseException notIso) {
            return decimal(s).isPresent() ? unixTime(s) : s;
        }
    }
}
