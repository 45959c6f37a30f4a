package org.nmws.service.observation;

import java.util.Locale;
import java.util.Map;

/** Strict parsing of NMWG parameter values: a bad value is refused with its name and range, never clamped. */
public final class Params {
    private Params() {
    }

    public static int integer(Map<String, String> p, String name, int dflt, int min, int max) {
        String v = p.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + name + " is '" + v + "': expected an integer " + min + ".." + max);
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
            d = Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + name + " is '" + v + "': expected a number " + min + ".." + max);
        }
        if (!(d >= min && d <= max)) {
            throw new IllegalArgumentException("parameter " + name + " is " + v + ": must be " + min + ".." + max);
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
            default -> throw new IllegalArgumentException("parameter " + name + " is '" + v + "': expected true or false");
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
