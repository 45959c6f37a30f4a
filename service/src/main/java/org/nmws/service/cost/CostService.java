package org.nmws.service.cost;

import org.nmws.service.measure.Caller;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Answers middleware's question "what does moving N bytes from a source to each of these
 * destinations cost?", ranked cheapest first. The rate is, in order of preference: a forecast
 * of the path's achievable-TCP series as the Network Weather Service made them
 * ({@link Forecaster}), with its expected error; else the TCP throughput the Mathis et al.
 * model (MSS/RTT * 1.22/sqrt(loss)) gives for the measured RTT and loss; capped by the
 * measured available bandwidth or capacity when those are lower. Time is bytes over rate plus
 * two round trips (connection set-up and the last acknowledgement).
 *
 * <p>The source is this point unless named: another point's results come from the archive when
 * it is shared. Stale or missing data is measured first when the client asks for a refresh and
 * may start tests (a TCP test per destination, within the client's time budget).
 */
public class CostService {
    /** A TCP segment payload on an Ethernet path (1500 MTU less IP, TCP and timestamp headers). */
    static final double MSS_BYTES = 1448;
    /** The most recent measurements a forecast rests on. */
    static final int SERIES = 100;
    /** A refresh test's length: long enough for TCP to leave slow start on a long path. */
    static final Duration REFRESH_TEST = Duration.ofSeconds(5);
    /** The longest a refresh waits for a busy path or responder. */
    private static final Duration MAX_BUSY_WAIT = Duration.ofSeconds(2);
    /** How soon a refresh that met a busy responder asks again. */
    private static final long BUSY_RETRY_MS = 250;

    private final Archive archive;
    private final Clock clock;
    private final MeasurementService measurements;

    public CostService(Archive archive, Clock clock, MeasurementService measurements) {
        this.archive = archive;
        this.clock = clock;
        this.measurements = measurements;
    }

    /** Archive data only, from this point (tests and the JSON API's simple form). */
    public List<TransferCost> rankChecked(List<String> destinations, double bytes, Duration maxAge) {
        return rank(Caller.SERVICE, CostQuery.stored(destinations, bytes, maxAge));
    }

    /**
     * The destinations ranked, from this archive; a refresh runs tests as the caller (who must
     * already be authorized to measure: see {@code usecase.TransferCosts}).
     */
    public List<TransferCost> rank(Caller caller, CostQuery q) {
        String src = local(q.src()) ? null : q.src();
        long bytes = (long) q.bytes();
        List<TransferCost> out = new ArrayList<>();
        Instant deadline = clock.instant().plus(q.timeBudget());
        for (int i = 0; i < q.destinations().size(); i++) {
            String dst = q.destinations().get(i);
            TransferCost c = cost(src, dst, bytes, q.maxAge(), q.protocol());
            boolean stale = q.refresh() && latest(q.protocol().equals("UDP") ? Characteristic.ProbeTest.UDP_STREAM
                    : Characteristic.ProbeTest.TCP_STREAM, src, dst, clock.instant().minus(q.maxAge())).isEmpty();
            if (stale && q.protocol().equals("UDP")) {
                c = c.withRefresh(false, "not refreshed: a UDP test needs an offered rate; measure achievable UDP first");
            } else if (stale) {
                c = refresh(caller, src, dst, bytes, q, deadline, q.destinations().size() - i, c);
            }
            out.add(c);
        }
        out.sort(Comparator.comparing(TransferCost::seconds, Comparator.nullsLast(Comparator.naturalOrder())));
        return out;
    }

    /** Whether a named source is this point (or names none). */
    private boolean local(String src) {
        return src == null || (measurements != null && src.equals(measurements.measurementPoint()));
    }

    /**
     * Measures achievable TCP to dst now and answers from the series with it; a test that cannot
     * run (not allowed, busy, out of budget, another point's path) leaves the stored answer with
     * the reason.
     */
    private TransferCost refresh(Caller caller, String src, String dst, long bytes, CostQuery q, Instant deadline, int left,
                                 TransferCost stored) {
        if (src != null) {
            return stored.withRefresh(false, "not refreshed: " + src + " is another point; ask it");
        }
        Duration remaining = Duration.between(clock.instant(), deadline);
        // each destination still to go gets its share of what is left of the budget
        Duration share = remaining.dividedBy(Math.max(1, left)).minusSeconds(1);
        Duration test = share.compareTo(REFRESH_TEST) < 0 ? share : REFRESH_TEST;
        if (test.toMillis() < 1000) {
            return stored.withRefresh(false, "not refreshed: the time budget is spent");
        }
        try {
            Map<String, String> p = new java.util.HashMap<>(Map.of("timeDuration", Double.toString(test.toMillis() / 1000.0),
                    "streams", Integer.toString(q.streams())));
            if (q.port() != null) {
                p.put("port", Integer.toString(q.port()));
            }
            // A path or responder busy with another test (a schedule's, another point's) is waited
            // for briefly, within this destination's share of the budget less the test itself: a
            // refresh the client asked for should not give up on a 50 ms round trip holding the path.
            Duration wait = share.minus(test);
            // at most a couple of seconds: nothing is charged while a request waits, so a long
            // wait would let refreshes hold request threads for minutes
            Instant giveUp = clock.instant().plus(wait.compareTo(MAX_BUSY_WAIT) < 0 ? wait : MAX_BUSY_WAIT);
            PathSubject path = new PathSubject(null, Endpoint.parse(dst, null));
            Characteristic c = Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP;
            while (true) {
                long waitMs = Math.max(0, Duration.between(clock.instant(), giveUp).toMillis());
                try {
                    measurements.measure(caller, c, path, p, measurements.testClassOf(c, p), waitMs);
                    break;
                } catch (MeasurementException e) {
                    if (e.kind() != MeasurementException.Kind.BUSY || clock.instant().plusMillis(BUSY_RETRY_MS).isAfter(giveUp)) {
                        throw e;
                    }
                    Thread.sleep(BUSY_RETRY_MS);
                }
            }
        } catch (MeasurementException e) {
            return stored.withRefresh(false, "not refreshed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return stored.withRefresh(false, "not refreshed: interrupted");
        }
        return cost(null, dst, bytes, q.maxAge(), "TCP").withRefresh(true, null);
    }

    TransferCost cost(String src, String dst, long bytes, Duration maxAge) {
        return cost(src, dst, bytes, maxAge, "TCP");
    }

    /** @param protocol TCP (achievable-TCP series) or UDP (achievable-UDP series: what the receiver got) */
    TransferCost cost(String src, String dst, long bytes, Duration maxAge, String protocol) {
        Instant since = clock.instant().minus(maxAge);
        boolean udp = "UDP".equals(protocol);
        Characteristic.ProbeTest seriesTest = udp ? Characteristic.ProbeTest.UDP_STREAM : Characteristic.ProbeTest.TCP_STREAM;
        String figure = udp ? "receiverUserMbps" : "throughputMbps";
        Optional<Observation> tcp = latest(seriesTest, src, dst, since);
        Optional<Observation> rtt = latest(Characteristic.ProbeTest.ROUND_TRIP, src, dst, since);
        Optional<Observation> avail = latest(Characteristic.ProbeTest.AVAILABLE, src, dst, since);
        Optional<Observation> cap = latest(Characteristic.ProbeTest.CAPACITY, src, dst, since);

        Double rttMs = rtt.map(o -> o.summary().get("medianRtt")).orElse(null);
        Double loss = rtt.map(o -> o.summary().get("lossPercent")).orElse(null);
        if (rttMs == null && tcp.isPresent() && tcp.get().summary().get("meanSrttUs") != null) {
            rttMs = tcp.get().summary().get("meanSrttUs") / 1e3; // TCP's own smoothed RTT when no round trip was measured
        }
        Double rate = null;
        String basis = "none";
        Instant at = null;
        Forecaster.Forecast forecast = null;
        if (tcp.isPresent() && tcp.get().summary().get(figure) != null) {
            // The series of achievable throughput, forecast as NWS would (one sample: its value).
            double[] series = archive.find(new ObservationQuery(seriesTest, dst, src, since, null,
                            false, SERIES, null, point(src))).stream().map(o -> o.summary().get(figure)).filter(v -> v != null)
                    .mapToDouble(Double::doubleValue).toArray();
            forecast = Forecaster.forecast(series);
            rate = forecast.value();
            basis = udp ? "achievable-udp" : "achievable-tcp";
            at = tcp.get().start();
        } else if (!udp && rttMs != null && loss != null && loss > 0 && rttMs > 0) {
            rate = MSS_BYTES * 8 / (rttMs / 1e3) * 1.22 / Math.sqrt(loss / 100) / 1e6;
            basis = "mathis";
            at = rtt.get().start();
        }
        Double ceiling = avail.map(o -> o.summary().get("availableMbps"))
                .or(() -> cap.map(o -> o.summary().get("capacityMbps"))).orElse(null);
        if (ceiling != null && (rate == null || ceiling < rate)) {
            rate = ceiling;
            forecast = null;
            basis = avail.isPresent() && avail.get().summary().get("availableMbps") != null ? "available" : "capacity";
            at = (avail.isPresent() ? avail : cap).get().start();
        }
        if (rate == null || rate <= 0) {
            return new TransferCost(src, dst, bytes, null, null, "none", null, rttMs, loss, null, null, 0, null, false,
                    src == null ? null : "nothing from " + src + " in the archive");
        }
        double seconds = bytes * 8 / (rate * 1e6) + 2 * (rttMs == null ? 0 : rttMs / 1e3);
        return new TransferCost(src, dst, bytes, seconds, rate, basis, at, rttMs, loss,
                forecast == null ? null : forecast.predictor(), forecast == null ? null : 100 * forecast.relativeError(),
                forecast == null ? 1 : forecast.samples(), Math.max(0, Duration.between(at, clock.instant()).toSeconds()),
                false, null);
    }

    private Optional<Observation> latest(Characteristic.ProbeTest test, String src, String dst, Instant since) {
        return latest(archive, point(src), test, src, dst, since);
    }

    /** The point whose results answer for a source: this one for none (an archive may be shared), else any. */
    String point(String src) {
        return src == null && measurements != null ? measurements.measurementPoint() : null;
    }

    /** The newest result of a test on a path since a time, measured by point (null: any). */
    static Optional<Observation> latest(Archive archive, String point, Characteristic.ProbeTest test, String src, String dst,
                                        Instant since) {
        List<Observation> found = archive.find(new ObservationQuery(test, dst, src, since, null, false, 1, null, point));
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(found.size() - 1));
    }
}
