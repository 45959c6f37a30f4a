package org.nmws.service.nmwg;

import org.nmws.service.observation.Numbers;

import java.time.Instant;
import java.util.Locale;
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

    /** A value as PingER datums write it: whole numbers without a point, else up to six decimals. */
    public static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6f", v).replaceAll("0+$", "");
    }

    public static String unixTime(Instant t) {
        return unixTime(t.getEpochSecond() * 1_000_000_000L + t.getNano());
    }

    public static String unixTime(long epochNanos) {
        return String.format(Locale.ROOT, "%d.%09d", Math.floorDiv(epochNanos, 1_000_000_000L),
                Math.floorMod(epochNanos, 1_000_000_000L));
    }
}
