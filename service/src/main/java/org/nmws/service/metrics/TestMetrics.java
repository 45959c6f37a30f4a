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
 * The service's measurements as Prometheus sees them (GET /actuator/prometheus):
 * <ul>
 * <li>{@code nmws_tests_total{characteristic,test,outcome}}: tests asked for (test: the probe test,
 *     round_trip, udp_stream, ...) and how they ended (ok, or the error kind: failed, busy, ...);</li>
 * <li>{@code nmws_test_duration_seconds{characteristic,test,outcome}}: a timer of the same;</li>
 * <li>{@code nmws_path_last{src,dst,characteristic,figure}}: each summary figure of the last
 *     kept result of a path, and {@code nmws_path_last_end_seconds{src,dst,characteristic}}
 *     when it ended, for at most {@code maxPaths} paths: the one updated longest ago is dropped
 *     (with its series) when a new one comes, so a client testing many destinations cannot
 *     grow the registry without bound;</li>
 * <li>{@code nmws_scheduled_runs_total{status,cause}}: scheduled runs by what became of them.</li>
 * </ul>
 */
final class TestMetrics implements TestListener, Scheduler.RunListener {
    private final MeterRegistry registry;
    private final int maxPaths;
    /** Path -> its gauges, least recently updated first (access order); guarded by itself. */
    private final LinkedHashMap<PathKey, PathGauges> paths = new LinkedHashMap<>(16, 0.75f, true);

    TestMetrics(MeterRegistry registry, int maxPaths) {
        if (maxPaths < 1 || maxPaths > 100_000) {
            throw new IllegalArgumentException("nmws.metrics.max-paths is " + maxPaths + ": must be 1..100000");
        }
        this.registry = registry;
        this.maxPaths = maxPaths;
    }

    @Override
    public void ended(Characteristic characteristic, Characteristic.ProbeTest test, PathSubject subject, Duration took,
                      MeasurementException.Kind failure, Observation kept) {
        String outcome = failure == null ? "ok" : failure.name().toLowerCase(Locale.ROOT);
        // Counter and timer builders return the registered meter when it exists: no map of our own.
        Counter.builder("nmws.tests").description("tests asked for, by how they ended")
                .tags("characteristic", characteristic.dottedName(), "test", test.key().toLowerCase(Locale.ROOT), "outcome", outcome)
                .register(registry).increment();
        Timer.builder("nmws.test.duration").description("time from a test's start to its result kept (or its failure)")
                .tags("characteristic", characteristic.dottedName(), "test", test.key().toLowerCase(Locale.ROOT), "outcome", outcome)
                .register(registry).record(took);
        if (kept != null) {
            last(new PathKey(kept.srcAddress() == null ? "" : kept.srcAddress(), subject.dst().host(),
                    characteristic.dottedName()), kept);
        }
    }

    @Override
    public void ended(String status, String cause) {
        Counter.builder("nmws.scheduled.runs").description("scheduled runs that came due, by what became of them")
                .tags("status", status.toLowerCase(Locale.ROOT), "cause", cause).register(registry).increment();
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
    private record PathKey(String src, String dst, String characteristic) {
    }

    /** One path's last values: a gauge per summary figure, each reading a value held here. */
    private final class PathGauges {
        private final PathKey key;
        private final Map<String, double[]> values = new HashMap<>();
        private final Map<String, Meter> meters = new HashMap<>();
        private final double[] end = new double[1];
        private final Meter endMeter;

        PathGauges(PathKey key) {
            this.key = key;
            // strongReference: the held array is the gauge's only referent; a weak one would read NaN after a GC.
            this.endMeter = Gauge.builder("nmws.path.last.end", end, a -> a[0]).baseUnit("seconds")
                    .description("when the last kept test of the path ended (Unix time)")
                    .tags("src", key.src(), "dst", key.dst(), "characteristic", key.characteristic())
                    .strongReference(true).register(registry);
        }

        /** Sets the figures of o; returns the gauges of figures o no longer has, for removal. */
        List<Meter> update(Observation o) {
            end[0] = o.end().getEpochSecond() + o.end().getNano() / 1e9;
            for (Map.Entry<String, Double> f : o.summary().entrySet()) {
                double[] v = values.get(f.getKey());
                if (v == null) {
                    double[] held = new double[1];
                    v = held;
                    values.put(f.getKey(), held);
                    meters.put(f.getKey(), Gauge.builder("nmws.path.last", held, a -> a[0])
                            .description("a summary figure of the last kept test of the path, in the unit the archive keeps it")
                            .tags("src", key.src(), "dst", key.dst(), "characteristic", key.characteristic(),
                                    "figure", f.getKey())
                            .strongReference(true).register(registry));
                }
                v[0] = f.getValue() == null ? Double.NaN : f.getValue();
            }
            List<Meter> gone = new ArrayList<>();
            for (Iterator<Map.Entry<String, Meter>> it = meters.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Meter> m = it.next();
                if (!o.summary().containsKey(m.getKey())) {
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
