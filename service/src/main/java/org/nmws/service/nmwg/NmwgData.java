package org.nmws.service.nmwg;

import org.nmws.service.observation.Numbers;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import org.nmws.schema.nmwg.Data;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Unit;

/** One nmwg:data being written: what a {@link DataForm} adds its datums to, and the value formats they share. */
public final class NmwgData {
    private final Data data;

    NmwgData(Data data) {
        this.data = data;
    }

    /** Adds a datum (a JAXB element of one of the NMWG schemas). */
    public void add(Object datum) {
        data.getAny().add(datum);
    }

    /** One nmws figure per summary entry, in the unit its kind declares, stamped with the result's start. */
    public void figures(Observation o, Function<String, Unit> units) {
        String time = unixTime(o.start());
        for (Map.Entry<String, Double> e : o.summary().entrySet()) {
            org.nmws.schema.figure.Figure fig = new org.nmws.schema.figure.Figure();
            fig.setName(e.getKey());
            fig.setValue(Numbers.significant(e.getValue()));
            String label = units.apply(e.getKey()).label();
            if (label != null) {
                fig.setUnits(label);
            }
            fig.setTimeType("unix");
            fig.setTimeValue(time);
            add(fig);
        }
    }

    /**
     * A value as PingER datums write it: whole numbers without a point, else up to six decimals.
     * Written by hand: String.format and a regex per value were a third of a day's SOAP answer
     * (docs/benchmarks.md, "Profile"). The digits are those of %.6f: Formatter rounds the
     * shortest decimal form (Double.toString's) half up, which BigDecimal repeats exactly.
     */
    public static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return Double.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
        }
        double a = Math.abs(v);
        if (a < 1e6) {
            // Most values (delays in ms, rates, ratios) land here. Away from a tie at the sixth
            // decimal, the long nearest |v| * 1e6 holds %.6f's digits: the product and the
            // shortest form each stray from v's exact value by under 1e-4 of a unit there, far
            // inside the 1e-3 margin kept. Java 17's Double.toString and BigDecimal, below,
            // cost several times this; they are left for values near a tie and the very large.
            double scaled = a * 1e6;
            double floor = Math.floor(scaled);
            double frac = scaled - floor;
            if (Math.abs(frac - 0.5) > 1e-3) {
                return sixDecimals((long) floor + (frac > 0.5 ? 1 : 0), v < 0);
            }
        }
        String shortest = Double.toString(v);
        int point = shortest.indexOf('.');
        if (shortest.indexOf('E') < 0 && shortest.length() - point - 1 <= 6) {
            return shortest; // already at most six decimals, none of them a trailing zero but "x.0" (whole, above)
        }
        String fixed = new BigDecimal(shortest).setScale(6, RoundingMode.HALF_UP).toPlainString();
        if (v < 0 && fixed.charAt(0) != '-') {
            fixed = "-" + fixed; // %.6f keeps the sign of a negative value that rounds to zero
        }
        int end = fixed.length();
        while (end > 0 && fixed.charAt(end - 1) == '0') {
            end--; // as replaceAll("0+$", "") did: "0.000000" became "0."
        }
        return fixed.substring(0, end);
    }

    /** millionths as %.6f writes them, trailing zeros dropped ("2.000000" is "2.", as the regex left it) */
    private static String sixDecimals(long millionths, boolean negative) {
        long whole = millionths / 1_000_000;
        int part = (int) (millionths % 1_000_000);
        StringBuilder b = new StringBuilder(24);
        if (negative) {
            b.append('-'); // %.6f keeps the sign of a negative value that rounds to zero
        }
        b.append(whole).append('.');
        if (part != 0) {
            int digits = 6;
            while (part % 10 == 0) {
                part /= 10;
                digits--;
            }
            String p = Integer.toString(part);
            for (int i = p.length(); i < digits; i++) {
                b.append('0');
            }
            b.append(p);
        }
        return b.toString();
    }

    public static String unixTime(Instant t) {
        return unixTime(t.getEpochSecond() * 1_000_000_000L + t.getNano());
    }

    /** Seconds since the epoch with nine decimals, as "%d.%09d" wrote it, without a Formatter per value. */
    public static String unixTime(long epochNanos) {
        long seconds = Math.floorDiv(epochNanos, 1_000_000_000L);
        long nanos = Math.floorMod(epochNanos, 1_000_000_000L);
        StringBuilder b = new StringBuilder(21).append(seconds).append('.');
        String n = Long.toString(nanos);
        for (int i = n.length(); i < 9; i++) {
            b.append('0');
        }
        return b.append(n).toString();
    }
}
