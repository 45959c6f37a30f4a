package org.nmws.client.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;

/**
 * A length of time on the command line as seconds (0.5) or ISO 8601 (PT0.5S, PT1M), turned
 * into the decimal seconds NMWG parameters carry (interval, timeDuration, timeout, waitTime).
 * Anything else is a usage error naming the option and both forms.
 */
final class Durations implements CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String text) {
        return seconds(text).toPlainString();
    }

    /** The seconds text names: a non-negative decimal, or an ISO 8601 duration. */
    static BigDecimal seconds(String text) {
        String t = text == null ? "" : text.trim();
        if (t.matches("[0-9]+(\\.[0-9]+)?|\\.[0-9]+")) {
            return new BigDecimal(t).stripTrailingZeros();
        }
        try {
            Duration d = Duration.parse(t);
            if (d.isNegative()) {
                throw new CommandLine.TypeConversionException("'" + text + "' is a negative duration");
            }
            return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9)).stripTrailingZeros();
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("'" + text + "' is neither seconds (0.5) nor an ISO 8601 duration"
                    + " (PT0.5S, PT1M)");
        }
    }

    /** As a java.time.Duration (to the nanosecond). */
    static Duration duration(String text) {
        BigDecimal s = seconds(text);
        try {
            // exact: seconds past a long's are refused, never wrapped into a short (or negative) wait
            return Duration.ofSeconds(s.setScale(0, java.math.RoundingMode.DOWN).longValueExact(),
                    s.remainder(BigDecimal.ONE).movePointRight(9).longValue());
        } catch (ArithmeticException e) {
            throw new CommandLine.TypeConversionException("'" + text + "' is longer than a duration can hold");
        }
    }
}
