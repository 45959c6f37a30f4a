package org.nmws.service.grid;

import java.time.Duration;

/** Durations as a reader says them: "42 s", "5 min", "3 h 10 min", "2 d 4 h". */
final class Ages {
    private Ages() {
    }

    static String words(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 120) {
            return s + " s";
        }
        long m = s / 60;
        if (m < 120) {
            return m + " min";
        }
        long h = m / 60;
        if (h < 48) {
            return h + " h" + (m % 60 == 0 ? "" : " " + m % 60 + " min");
        }
        return h / 24 + " d" + (h % 24 == 0 ? "" : " " + h % 24 + " h");
    }
}
