package org.nmws.service.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.TestListener;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.schedule.Scheduler;

/**
 * The service's measurements as Prometheus sees them (GET /actuator/prometheus), named with
 * their units and with bounded labels (issue 26):
 * <ul>
 * <li>{@code nmws_tests_total{characteristic,test,outcome}}: tests that started, by how they
 *     ended (ok, failed, storage); {@code nmws_tests_not_started_total{characteristic,test,reason}}:
 *     tests refused before they started (busy, parameter, subject, denied, rate_limited,
 *     unavailable), so that a busy retry is not a failure;</li>
 * <li>{@code nmws_test_duration_seconds{characteristic,test,outcome}}: a timer of the started ones;</li>
 * <li>a gauge per figure family of the last kept result of a path, in base units: e.g.
 *     {@code nmws_path_rtt_seconds{stat="median"}}, {@code nmws_path_loss_ratio},
 *     {@code nmws_path_throughput_bits_per_second}, each with {src,dst,characteristic,test}
 *     (see {@link PathFigures}); numbered families (per hop, step, stream, bin) are left to
 *     /api/results. {@code nmws_path_last_end_timestamp_seconds{src,dst,characteristic,test}}
 *     says when it ended. At most {@code maxPaths} paths: the one updated longest ago is
 *     dropped (with its series) when a new one comes, so a client testing many destinations
 *     cannot grow the registry without bound;</li>
 * <li>{@code nmws_scheduled_runs_total{outcome}} (done, failed, internal) and
 *     {@code nmws_scheduled_runs_not_started_total{reason}} (busy, rate, missed, backoff,
 *     overlap, removed): scheduled runs that came due.</li>
 * </ul>
 */
final class TestMetrics implements TestListener, Scheduler.RunListener {
    /** Failure kinds that mean the test never started: counted apart from failures. */
    private static final java.util.Set<MeasurementException.Kind> NOT_STARTED = java.util.EnumSet.of(
            MeasurementException.Kind.BUSY, MeasurementException.Kind.PARAMETER, MeasurementException.Kind.SUBJECT,
            MeasurementException.Kind.DENIED, MeasurementException.Kind.RATE_LIMITED, MeasurementException.Kind.UNAVAILABLE);

    private final MeterRegistry registry;
    private final int maxPaths;
    private final PathFigures figures;
    /** Path -> its gauges, least recently updated first (access order); guarded by itself. */
    private final LinkedHashMap<PathKey, PathGauges> paths = new LinkedHashMap<>(16, 0.75f, true);

    TestMetrics(MeterRegistry registry, int maxPaths, PathFigures figures) {
        if (maxPaths < 1 || maxPaths > 100_000) {
            throw new IllegalArgumentException("nmws.metrics.max-paths is " + maxPaths + ": must be 1..100000");
        }
        this.registry = registry;
        this.maxPaths = maxPaths;
        this.figures = figures;
    }

    @Override
    public void ended(Characteristic characteristic, Characteristic.ProbeTest test, PathSubject subject, Duration took,
                      MeasurementException.Kind failure, Observation kept) {
        String testLabel = test.key().toLowerCase(Locale.ROOT);
        if (failure != null && NOT_STARTED.contains(failure)) {
            Counter.builder("nmws.tests.not.started").description("tests refused before they started, by why")
                    .tags("characteristic", characteristic.dottedName(), "test", testLabel,
                            "reason", failure.name().toLowerCase(Locale.ROOT)).register(registry).increment();
            return;
        }
        String outcome = failure == null ? "ok" : failure.name().toLowerCase(Locale.ROOT);
        // Counter and timer builders return the registered meter when it exists: no map of our own.
        Counter.builder("nmws.tests").description("tests that started, by how they ended")
                .tags("characteristic", characteristic.dottedName(), "test", testLabel, "outcome", outcome)
                .register(registry).increment();
        Timer.builder("nmws.test.duration").description("time from a test's start to its result kept (or its failure)")
                .tags("characteristic", characteristic.dottedName(), "test", testLabel, "outcome", outcome)
                .register(registry).record(took);
        if (kept != null) {
            // a test without a source address (a trace) is labelled with the point it ran on: no empty label
            String src = kept.srcAddress() == null || kept.srcAddress().isBlank() ? kept.measurementPoint() : kept.srcAddress();
            last(new PathKey(src == null || src.isBlank() ? "local" : src, subject.dst().host(), characteristic.dottedName(),
                    test), kept);
        }
    }

    @Override
    public void ended(String status, String cause) {
        String s = status.toLowerCase(Locale.ROOT);
        if (s.equals("nonstarter")) {
            Counter.builder("nmws.scheduled.runs.not.started").description("scheduled runs that came due and did not start, by why")
                    .tags("reason", cause == null || cause.isBlank() ? "unknown" : cause).register(registry).increment();
            return;
        }
        String outcome = s.equals("done") ? "done" : "internal".equals(cause) ? "internal" : "failed";
        Counter.builder("nmws.scheduled.runs").description("scheduled runs that came due and started, by how they ended")
                .tags("outcome", outcome).register(registry).increment();
    }

    private void last(PathKey key, Observation o) {
        List<Meter> dropped = new ArrayList<>();
        synchronized (paths) {
            PathGauges g = paths.get(key);
            if (g == null) {
                if (paths.size() >= maxPaths) {
                    Iterator<PathGauges> oldest = paths.values().iterator();
                    dropped.addAll(oldest.next().meters());
                    oldest.remove();
                }
                g = new PathGauges(key);
                paths.put(key, g);
            }
            dropped.addAll(g.update(o));
        }
        dropped.forEach(registry::remove);
    }

    /** The labels of one path's series. */
    private record PathKey(String src, String dst, String characteristic, Characteristic.ProbeTest test) {
        String[] tags() {
            return new String[] {"src", src, "dst", dst, "characteristic", characteristic, "test", test.key().toLowerCase(Locale.ROOT)};
        }
    }

    /** One path's last values: a gauge per figure family member, each reading a value held here. */
    private final class PathGauges {
        private final PathKey key;
        private final Map<String, double[]> values = new HashMap<>();
        private final Map<String, Meter> meters = new HashMap<>();
        private final double[] end = new double[1];
        private final Meter endMeter;

        PathGauges(PathKey key) {
            this.key = key;
            // strongReference: the held array is the gauge's only referent; a weak one would read NaN after a GC.
            this.endMeter = Gauge.builder("nmws.path.last.end.timestamp", end, a -> a[0]).baseUnit("seconds")
                    .description("when the last kept test of the path ended (Unix time)")
                    .tags(key.tags()).strongReference(true).register(registry);
        }

        /** Sets the figures of o in base units; returns the gauges of figures o no longer has, for removal. */
        List<Meter> update(Observation o) {
            end[0] = o.end().getEpochSecond() + o.end().getNano() / 1e9;
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (Map.Entry<String, Double> f : o.summary().entrySet()) {
                PathFigures.Family family = figures.family(key.test(), f.getKey()).orElse(null);
                if (family == null) {
                    continue;
                }
                seen.add(f.getKey());
                double[] v = values.get(f.getKey());
                if (v == null) {
                    double[] held = new double[1];
                    Gauge.Builder<double[]> b = Gauge.builder(family.metric(), held, a -> a[0])
                            .description(family.description()).tags(key.tags()).strongReference(true);
                    if (family.stat() != null) {
                        b.tag("stat", family.stat());
                    }
                    v = held;
                    values.put(f.getKey(), held);
                    meters.put(f.getKey(), b.register(registry));
                }
                v[0] = f.getValue() == null ? Double.NaN : f.getValue() * family.factor();
            }
            List<Meter> gone = new ArrayList<>();
            for (Iterator<Map.Entry<String, Meter>> it = meters.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Meter> m = it.next();
                if (!seen.contains(m.getKey())) {
                    gone.add(m.getValue());
                    values.remove(m.getKey());
                    it.remove();
                }
            }
            return gone;
        }

        List<Meter> meters() {
            List<Meter> all = new ArrayList<>(meters.values());
            all.add(endMeter);
            return all;
        }
    }
}
