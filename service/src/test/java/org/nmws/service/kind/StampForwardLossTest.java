package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.probe.StampResult;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/** What a STAMP run keeps of the engine's result, with the engine's answer given (no network). */
class StampForwardLossTest {
    private static final PathSubject PATH = new PathSubject(null, Endpoint.parse("192.0.2.7", "ipv4"));

    /** An engine result of 10 packets, 'lost' of them unanswered, 'forwardLost' of those counted by the reflector. */
    private static StampResult result(int lost, int forwardLost) {
        int n = 10;
        long[] send = new long[n];
        long[] rtt = new long[n];
        for (int i = 0; i < n; i++) {
            send[i] = 1_800_000_000_000_000_000L + i * 100_000_000L;
            rtt[i] = i < n - lost ? 2_000_000 : -1;
        }
        long[] oneWay = new long[n];
        Arrays.fill(oneWay, 1_000_000);
        int[] ttl = new int[n];
        Arrays.fill(ttl, 64);
        return new StampResult(n, n, n - lost, lost, 0, 0, 100.0 * lost / n, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1,
                0.1, 0.1, 0.2, true, false, forwardLost, 0, send[0], send[n - 1] + 1_000_000_000L, "192.0.2.1", "192.0.2.7",
                new StampResult.Frames(send, rtt, oneWay, oneWay, ttl, ttl), false);
    }

    /** A runner whose engine hands back the result given, as if it had run. */
    private static TestRunner engineAnswering(StampResult r) {
        return new FakeEngine().answer(org.nmws.probe.StampSpec.class, spec -> r).runner();
    }

    private static Map<String, Double> summaryOf(StampResult r) throws Exception {
        StampKind.Parameters p = StampKind.Parameters.parse(Map.of(), 1000, Duration.ofSeconds(60));
        Observation o = new StampKind().run(p, PATH, engineAnswering(r));
        return o.summary();
    }

    @Test
    void lossThroughAReflectorThatEchoesTheSendersNumbersHasNoForwardSplit() throws Exception {
        // Issue 20: a stateless reflector under 10 % loss on the way there was reported as forwardLost 0.
        Map<String, Double> s = summaryOf(result(1, 0));
        assertFalse(s.containsKey("forwardLost"), s.toString());
        assertEquals(10.0, s.get("lossPercent"));
    }

    @Test
    void aStatefulReflectorsGapGivesTheForwardSplit() throws Exception {
        assertEquals(1.0, summaryOf(result(2, 1)).get("forwardLost"));
    }

    @Test
    void withNothingLostNothingWasLostOnTheWayThere() throws Exception {
        assertEquals(0.0, summaryOf(result(0, 0)).get("forwardLost"));
    }
}
