package org.nmws.service.kind;

import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.nmws.probe.HopCapacityResult;
import org.nmws.probe.HopCapacityResult.HopEstimate;

class BandwidthObservationsTest {

    private static HopEstimate hop(int ttl, double frameMbps, boolean lowerBound, boolean endsOnly) {
        return new HopEstimate(ttl, Optional.of("10.0." + ttl + ".1"), false, 0,
                new HopCapacityResult.Estimate(frameMbps * 0.97, frameMbps, frameMbps * 1.01), frameMbps,
                new HopCapacityResult.Spread(frameMbps, frameMbps, frameMbps, frameMbps, 0), Double.NaN, lowerBound, endsOnly,
                new HopCapacityResult.Trains(10, Double.isNaN(frameMbps) ? 0 : 10, 0, 0, 0),
                new HopCapacityResult.Answers(640, 20, 20, 0), List.of(), List.of());
    }

    @Test
    void theBottleneckIsTheNarrowestMeasuredHopWhateverFollowsIt() {
        // Hop 1 a lower bound, hop 2 the bucket, hop 3 a destination that answered no train.
        HopCapacityResult r = new HopCapacityResult(List.of(hop(1, 8000, true, true), hop(2, 100.07, false, true),
                hop(3, Double.NaN, false, true)), true, true, 3, "10.0.3.1", 30, 64, 32, 1472, 42, 66, 0, 1, false);
        Observation o = BandwidthObservations.perHop(new PathSubject(null, new Endpoint("10.0.3.1", "ipv4")),
                new HopCapacityParameters(30, 64, 1472, 8), r, new FakeEngine().runner());
        assertEquals(100.07, o.summary().get("bottleneckFrameMbps"), 1e-9);
        assertEquals(1.0, o.summary().get("hop2EndsOnly"));
        assertFalse(o.summary().containsKey("hop3CapacityFrameMbps"), "no estimate, no figure");
    }
}
