package org.nmws.service.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementKinds;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Unit;

/**
 * The Prometheus metric a kind's summary figure goes to: one metric per figure family in base
 * units, the statistic as a label (issue 26: one nmws_path_last mixed ms, Mbit/s, % and counts
 * under one name). medianRtt (ms) is nmws_path_rtt_seconds{stat="median"}, lossPercent is
 * nmws_path_loss_ratio, receiverUserMbps is nmws_path_receiver_user_bits_per_second, a count
 * (sent) stays unitless. The unit is the one the kind declares, never guessed; numbered families
 * the kind declares as patterns (per hop, step, stream, histogram bin) have no metric, which keeps
 * the series of a path bounded by its kind's fixed figures.
 */
final class PathFigures {
    /** Where a figure goes: metric name (Micrometer's dotted form), stat label or null, factor to the base unit. */
    record Family(String metric, String stat, double factor, String description) {
    }

    /** A statistic's prefix of a figure name: minRtt, p99DelayMs, steadyMaxLatenessMs. */
    private static final Pattern STAT = Pattern.compile("^(min|max|mean|median|avg|iqr|p[0-9]{1,2}|steadyMax)([A-Z].*)?$");

    private final MeasurementKinds kinds;
    /** (test, figure) -> its family, or empty for none; figures are few and fixed per kind. */
    private final Map<String, Optional<Family>> known = new ConcurrentHashMap<>();
    /** metric -> whether it carries the stat label: Prometheus wants one set of label names per metric. */
    private final Map<String, Boolean> labelled = new ConcurrentHashMap<>();

    PathFigures(MeasurementKinds kinds) {
        this.kinds = kinds;
    }

    /** The family of a figure of a test's result, or empty when it has no metric (a numbered family, a clash). */
    Optional<Family> family(Characteristic.ProbeTest test, String figure) {
        return known.computeIfAbsent(test.key() + " " + figure, k -> derive(test, figure));
    }

    private Optional<Family> derive(Characteristic.ProbeTest test, String figure) {
        MeasurementKind<?> kind = kinds.get(test);
        if (kind == null) {
            return Optional.empty();
        }
        for (Figure f : kind.figures()) {
            if (f.pattern() && figure.matches(f.name())) {
                return Optional.empty();
            }
        }
        Unit unit = kind.unit(figure);
        Parts parts = parts(figure, unit, test);
        if (parts.name().matches(".*[0-9].*") && !figure.equals("fitR2Ratio")) {
            return Optional.empty(); // numbered, though undeclared as a pattern: its series would not be bounded
        }
        String stat = parts.stat();
        if (stat == null) {
            // a plain figure whose family has statistics in the same kind (utilization's outMbps beside maxOutMbps)
            for (Figure other : kind.figures()) {
                if (!other.pattern() && !other.name().equals(figure)) {
                    Parts o = parts(other.name(), kind.unit(other.name()), test);
                    if (o.stat() != null && o.name().equals(parts.name())) {
                        stat = "value";
                        break;
                    }
                }
            }
        }
        String metric = "nmws.path." + parts.name() + suffix(unit);
        boolean hasStat = stat != null;
        if (labelled.computeIfAbsent(metric, m -> hasStat) != hasStat) {
            return Optional.empty(); // another kind's figure took the name with the other label set
        }
        return Optional.of(new Family(metric, stat, factor(unit), "the last kept result's " + parts.name().replace('.', ' ')
                + (unit == Unit.NONE ? "" : " in" + suffix(unit).replace('.', ' ')) + (hasStat ? ", by statistic" : "")));
    }

    /** A figure's family name (dotted words) and statistic, its unit's suffix taken off. */
    private record Parts(String name, String stat) {
    }

    private static Parts parts(String figure, Unit unit, Characteristic.ProbeTest test) {
        String stat = null;
        String rest = figure;
        Matcher m = STAT.matcher(figure);
        if (m.matches()) {
            stat = m.group(1).equals("steadyMax") ? "steady_max" : m.group(1);
            rest = m.group(2) == null ? "" : m.group(2);
        }
        String suffix = switch (unit) {
            case MILLISECONDS -> "Ms";
            case MICROSECONDS -> "Us";
            case NANOSECONDS -> "Ns";
            case MICROSECONDS_PER_BYTE -> "UsPerByte";
            case MBIT_PER_SECOND -> "Mbps";
            case PERCENT -> "Percent";
            case RATIO -> "Ratio";
            case BYTES -> "Bytes";
            case NONE -> "";
        };
        if (!suffix.isEmpty() && rest.endsWith(suffix)) {
            rest = rest.substring(0, rest.length() - suffix.length());
        } else if (unit == Unit.BYTES && rest.startsWith("bytes")) {
            rest = rest.substring("bytes".length()); // bytesSent: sent, in bytes
        } else if (unit == Unit.BYTES && rest.contains("Bytes")) {
            rest = rest.replace("Bytes", ""); // bufferBytesByDelay
        }
        if (rest.isEmpty()) {
            // only a statistic (capacity's p10Mbps): the distribution of the kind's estimates
            rest = test.key().toLowerCase(Locale.ROOT) + "Estimate";
        }
        if (rest.equals("Forward") || rest.equals("Backward")) {
            rest = rest + "Delay"; // STAMP and TWAMP's medianForwardMs: the forward one-way delay
        }
        // camelCase to dotted words (Prometheus writes them with underscores)
        String dotted = rest.replaceAll("([a-z0-9])([A-Z])", "$1.$2").replace('_', '.').toLowerCase(Locale.ROOT);
        return new Parts(dotted.startsWith(".") ? dotted.substring(1) : dotted, stat);
    }

    private static String suffix(Unit unit) {
        return switch (unit) {
            case MILLISECONDS, MICROSECONDS, NANOSECONDS -> ".seconds";
            case MICROSECONDS_PER_BYTE -> ".seconds.per.byte";
            case MBIT_PER_SECOND -> ".bits.per.second";
            case PERCENT, RATIO -> ".ratio";
            case BYTES -> ".bytes";
            case NONE -> "";
        };
    }

    private static double factor(Unit unit) {
        return switch (unit) {
            case MILLISECONDS -> 1e-3;
            case MICROSECONDS, MICROSECONDS_PER_BYTE -> 1e-6;
            case NANOSECONDS -> 1e-9;
            case MBIT_PER_SECOND -> 1e6;
            case PERCENT -> 1e-2;
            case RATIO, BYTES, NONE -> 1;
        };
    }
}
