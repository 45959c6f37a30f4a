package org.nmws.service.kind;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Interface counters sampled over time as an observation: mean and peak rates each way,
 * utilization of the interface's speed, errors and discards; the per-interval byte counts
 * are the frames (seq 2i out and 2i+1 in, ttl 0 out / 1 in, value = interval length).
 */
final class UtilizationObservations {
    private UtilizationObservations() {
    }

    static Observation of(PathSubject subject, String ifName, UtilizationParameters p, List<InterfaceCounters.Sample> samples,
                          Long speedMbps, TestRunner runner) {
        String point = runner.measurementPoint();
        HostEnvironment host = runner.host();
        InterfaceCounters.Sample first = samples.get(0);
        InterfaceCounters.Sample last = samples.get(samples.size() - 1);
        double seconds = (last.monoNanos() - first.monoNanos()) / 1e9;
        Map<String, Double> s = new LinkedHashMap<>();
        double outMbps = (last.txBytes() - first.txBytes()) * 8 / seconds / 1e6;
        double inMbps = (last.rxBytes() - first.rxBytes()) * 8 / seconds / 1e6;
        s.put("outMbps", outMbps);
        s.put("inMbps", inMbps);
        List<Observation.Frame> frames = new ArrayList<>();
        double maxOut = 0;
        double maxIn = 0;
        for (int i = 1; i < samples.size(); i++) {
            InterfaceCounters.Sample a = samples.get(i - 1);
            InterfaceCounters.Sample b = samples.get(i);
            long dt = b.monoNanos() - a.monoNanos();
            long dOut = b.txBytes() - a.txBytes();
            long dIn = b.rxBytes() - a.rxBytes();
            maxOut = Math.max(maxOut, dOut * 8e3 / dt);
            maxIn = Math.max(maxIn, dIn * 8e3 / dt);
            // An int holds 2 GB: over 17 Gbit/s for a 1 s interval; clamp rather than wrap.
            frames.add(new Observation.Frame(2L * (i - 1), a.epochNanos(), dt, dOut, 0));
            frames.add(new Observation.Frame(2L * (i - 1) + 1, a.epochNanos(), dt, dIn, 1));
        }
        s.put("maxOutMbps", maxOut);
        s.put("maxInMbps", maxIn);
        if (speedMbps != null) {
            s.put("speedMbps", (double) speedMbps);
            s.put("outUtilizationPercent", outMbps / speedMbps * 100);
            s.put("inUtilizationPercent", inMbps / speedMbps * 100);
        }
        s.put("outPackets", (double) (last.txPackets() - first.txPackets()));
        s.put("inPackets", (double) (last.rxPackets() - first.rxPackets()));
        s.put("outErrors", (double) (last.txErrors() - first.txErrors()));
        s.put("inErrors", (double) (last.rxErrors() - first.rxErrors()));
        s.put("outDiscards", (double) (last.txDropped() - first.txDropped()));
        s.put("inDiscards", (double) (last.rxDropped() - first.rxDropped()));
        s.put("samples", (double) samples.size());
        Environment env = new Environment(host.describeInterface("src", ifName), null);
        return new Observation(0, point, Characteristic.ProbeTest.UTILIZATION, subject, null, null, "nmws-counters",
                null, p.asNmwg(), env, instant(first.epochNanos()), instant(last.epochNanos()), s, frames);
    }

    private static Instant instant(long epochNanos) {
        return MeasurementService.instant(epochNanos);
    }
}
