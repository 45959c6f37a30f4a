package org.nmws.service.archive;

import java.time.Instant;
import org.nmws.service.observation.Observation;

/**
 * Where the next page of a stored-results answer starts: the observations strictly older, in
 * the archive's newest-first order (start time, then id), than the oldest one an answer
 * carried. Given to clients as text ("startNanos-id") and sent back unchanged; the pair is
 * exact where a time alone is not (two results may start in the same nanosecond).
 */
public record PageKey(long startNanos, long id) {

    public static PageKey of(Observation o) {
        Instant s = o.start();
        return new PageKey(s.getEpochSecond() * 1_000_000_000L + s.getNano(), o.id());
    }

    /** The text a client sends back. */
    public String encode() {
        return startNanos + "-" + id;
    }

    /** A key an earlier answer gave; anything else is the client's error, said plainly. */
    public static PageKey decode(String text) {
        String t = text == null ? "" : text.trim();
        int dash = t.indexOf('-', 1);
        if (dash > 0 && t.length() <= 41 && t.substring(0, dash).matches("-?\\d{1,19}")
                && t.substring(dash + 1).matches("\\d{1,19}")) {
            try {
                return new PageKey(Long.parseLong(t.substring(0, dash)), Long.parseLong(t.substring(dash + 1)));
            } catch (NumberFormatException e) {
                // out of range: fall through
            }
        }
        throw new IllegalArgumentException("the page key '" + (t.length() > 64 ? t.substring(0, 64) + "..." : t)
                + "' is not one this archive gave; send back the key of an answer that said it was cut");
    }
}
