package org.nmws.service.cost;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;

/**
 * Answers middleware's question "what does moving N bytes from here to each of these
 * destinations cost?" from what the archive holds, ranked cheapest first. The rate is, in
 * order of preference: a recent achievable-TCP measurement; else the TCP throughput the
 * Mathis et al. model (MSS/RTT * 1.22/sqrt(loss)) gives for the measured RTT and loss; capped
 * by the measured available bandwidth or capacity when those are known. Time is bytes over
 * rate plus two round trips (connection set-up and the last acknowledgement). A series of
 * achievable-TCP measurements is forecast as the Network Weather Service did ({@link Forecaster}),
 * with the forecast's expected error.
 */
public class CostService {
    /** A TCP segment payload on an Ethernet path (1500 MTU less IP, TCP and timestamp headers). */
    static final double MSS_BYTES = 1448;
    /** The most recent measurements a forecast rests on. */
    static final int SERIES = 100;

    private final Archive archive;
    private final Clock clock;

    public CostService(Archive archive, Clock clock) {
        this.archive = archive;
        this.clock = clock;
    }

    static final int MAX_DESTINATIONS = 100;
    static final Duration MAX_AGE = Duration.ofDays(36_500);

    /** The same question with what a client sent checked first, for every dialect alike. */
    public List<TransferCost> rankChecked(List<String> destinations, double bytes, Duration maxAge) {
        if (destinations.isEmpty() || destinations.size() > MAX_DESTINATIONS) {
            throw new IllegalArgumentException("give 1.." + MAX_DESTINATIONS + " destinations, got " + destinations.size());
        }
        if (!(bytes >= 1 && bytes <= 1e18)) {
            throw new IllegalArgumentException("bytes must be 1..1e18, was " + bytes);
        }
        // bounded above too: a window reaching before the epoch would overflow the clock
        if (maxAge.isNegative() || maxAge.isZero() || maxAge.compareTo(MAX_AGE) > 0) {
            throw new IllegalArgumentException("maxAge must be positive and at most " + MAX_AGE + ", was " + maxAge);
        }
        return rank(destinations, (long) bytes, maxAge);
    }

    public List<TransferCost> rank(List<String> destinations, long bytes, Duration maxAge) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes must be > 0, was " + bytes);
        }
        List<TransferCost> out = new ArrayList<>();
        for (String dst : destinations) {
            out.add(cost(dst, bytes, maxAge));
        }
        out.sort(Comparator.comparing(TransferCost::seconds, Comparator.nullsLast(Comparator.naturalOrder())));
        return out;
    }

    TransferCost cost(String dst, long bytes, Duration maxAge) {
        Instant since = clock.instant().minus(maxAge);
        Optional<Observation> tcp = latest(Characteristic.ProbeTest.TCP_STREAM, dst, since);
        Optional<Observation> rtt = latest(Characteristic.ProbeTest.ROUND_TRIP, dst, since);
        Optional<Observation> avail = latest(Characteristic.ProbeTest.AVAILABLE, dst, since);
        Optional<Observation> cap = latest(Characteristic.ProbeTest.CAPACITY, dst, since);

        Double rttMs = rtt.map(o -> o.summary().get("medianRtt")).orElse(null);
        Double loss = rtt.map(o -> o.summary().get("lossPercent")).orElse(null);
        Double rate = null;
        String basis = "none";
        Instant at = null;
        Forecaster.Forecast forecast = null;
        if (tcp.isPresent() && tcp.get().summary().get("throughputMbps") != null) {
            // The series of achievable TCP throughput, forecast as NWS would (one sample: its value).
            double[] series = archive.find(new ObservationQuery(Characteristic.ProbeTest.TCP_STREAM, dst, null, since, null,
                            false, SERIES)).stream().map(o -> o.summary().get("throughputMbps")).filter(v -> v != null)
                    .mapToDouble(Double::doubleValue).toArray();
            forecast = Forecaster.forecast(series);
            rate = forecast.value();
            basis = "achievable-tcp";
            at = tcp.get().start();
        } else if (rttMs != null && loss != null && loss > 0 && rttMs > 0) {
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
            return new TransferCost(dst, bytes, null, null, "none", null, rttMs, loss, null, null, 0, null);
        }
        double seconds = bytes * 8 / (rate * 1e6) + 2 * (rttMs == null ? 0 : rttMs / 1e3);
        return new TransferCost(dst, bytes, seconds, rate, basis, at, rttMs, loss,
                forecast == null ? null : forecast.predictor(), forecast == null ? null : 100 * forecast.relativeError(),
                forecast == null ? 1 : forecast.samples(), Math.max(0, Duration.between(at, clock.instant()).toSeconds()));
    }

    private Optional<Observation> latest(Characteristic.ProbeTest test, String dst, Instant since) {
        List<Observation> found = archive.find(new ObservationQuery(test, dst, null, since, null, false, 1));
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(found.size() - 1));
    }
}
