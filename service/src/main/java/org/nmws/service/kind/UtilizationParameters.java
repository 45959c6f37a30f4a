package org.nmws.service.kind;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Params;

/**
 * Parameters of a utilization sample: timeDuration (seconds of sampling) and interval
 * (seconds between counter readings), as an SNMP MA's collection period.
 */
public record UtilizationParameters(double durationSeconds, double intervalSeconds) {

    /** Every parameter name a utilization sample reads. */
    static final java.util.Set<String> READS = java.util.Set.of("interval", "timeDuration");

    static UtilizationParameters parse(Map<String, String> p, Duration maxDuration) {
        ParameterNames.check(p, "utilization", READS);
        double interval = Params.decimal(p, "interval", 1, 0.01, 300);
        double duration = Params.decimal(p, "timeDuration", 10, interval, maxDuration.toSeconds());
        return new UtilizationParameters(duration, interval);
    }

    public Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("timeDuration", Params.plain(durationSeconds));
        m.put("interval", Params.plain(intervalSeconds));
        return m;
    }
}
