package org.nmws.service.observation;

import java.util.Locale;
import java.util.Map;

/** Strict parsing of NMWG parameter values: a bad value is refused with its name and range, never clamped. */
public final class Params {
    /**
     * What a number may look like: ASCII digits with an optional sign, point and exponent.
     * Java's own parsers also take hex floats ("0x1p3"), "Infinity", "NaN", a trailing "d"
     * and other scripts' digits ("٣"), none of which a client means as a parameter.
     */
    private static final java.util.regex.Pattern DECIMAL =
            java.util.regex.Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d{1,3})?");
    private static final java.util.regex.Pattern INTEGER = java.util.regex.Pattern.compile("[+-]?\\d{1,18}");
    /** The longest value echoed back in an error: the client's input is not repeated unbounded. */
    private static final int ECHO_MAX = 64;

    private Params() {
    }

    /** A client's value as an error quotes it: at most ECHO_MAX characters. */
    public static String echo(String v) {
        return v.length() <= ECHO_MAX ? v : v.substring(0, ECHO_MAX) + "... (" + v.length() + " characters)";
    }

    /** True for a decimal number in plain ASCII (see DECIMAL). */
    public static boolean isDecimal(String v) {
        return DECIMAL.matcher(v).matches();
    }

    /** Whether a decimal literal names a nonzero number (a nonzero digit before its exponent), though it parsed as 0. */
    static boolean underflows(String literal) {
        int e = Math.max(literal.indexOf('e'), literal.indexOf('E'));
        return (e < 0 ? literal : literal.substring(0, e)).chars().anyMatch(c -> c >= '1' && c <= '9');
    }

    public static int integer(Map<String, String> p, String name, int dflt, int min, int max) {
        String v = p.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        long n;
        try {
            if (!INTEGER.matcher(v.trim()).matches()) {
                throw new NumberFormatException();
            }
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + name + " is '" + echo(v) + "': expected an integer " + min
                    + ".." + max);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("parameter " + name + " is " + n + ": must be " + min + ".." + max);
        }
        return (int) n;
    }

    public static double decimal(Map<String, String> p, String name, double dflt, double min, double max) {
        String v = p.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        double d;
        try {
            if (!isDecimal(v.trim())) {
                throw new NumberFormatException();
            }
            d = Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + name + " is '" + echo(v) + "': expected a number " + min
                    + ".." + max);
        }
        if (d == 0 && underflows(v.trim())) {
            throw new IllegalArgumentException("parameter " + name + " is '" + echo(v) + "': too small to be told from 0; must be "
                    + min + ".." + max);
        }
        if (!(d >= min && d <= max)) {
            throw new IllegalArgumentException("parameter " + name + " is " + echo(v) + ": must be " + min + ".." + max);
        }
        return d;
    }

    /** true/false (or 1/0, any case); anything else is refused rather than read as false. */
    public static boolean bool(Map<String, String> p, String name) {
        String v = p.get(name);
        if (v == null || v.isBlank()) {
            return false;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new IllegalArgumentException("parameter " + name + " is '" + echo(v) + "': expected true or false");
        };
    }

    /**
     * Refuses a test longer than the service's limit; how refers to how its length was
     * reckoned ("count 10 x interval 0.100 s + timeout 1.000 s"), so the client sees why.
     */
    public static void withinDuration(double seconds, java.time.Duration max, String how, Object... args) {
        if (seconds > max.toSeconds()) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, how, args)
                    + String.format(Locale.ROOT, " = %.1f s exceeds this service's limit of %d s", seconds, max.toSeconds()));
        }
    }

    /** A decimal without trailing zeros: 0.5, 2, 0.0001. */
    public static String plain(double v) {
        String s = String.format(Locale.ROOT, "%.9f", v).replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
