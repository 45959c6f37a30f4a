package org.nmws.service.measure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.catalina.util.NetMask;
import org.nmws.service.NmwsProperties;

/**
 * What one client (an account, an API key, or the anonymous clients) may ask of the probe,
 * within the service's own limits, as pScheduler's limits file grants per class of client:
 * the longest test, the most frames, the fastest rate, tests an hour, tests at once, and the
 * networks tests may go to. Null or empty means no limit of this kind beyond the service's.
 */
public final class ClientLimits {
    public static final ClientLimits NONE = new ClientLimits(null, null, null, 0, 0, List.of(), List.of());

    private final Duration maxDuration;
    private final Integer maxCount;
    private final Double maxRateMbps;
    private final int testsPerHour;
    private final int maxConcurrent;
    private final List<NetMask> destinations;
    private final List<String> destinationText;

    private ClientLimits(Duration maxDuration, Integer maxCount, Double maxRateMbps, int testsPerHour, int maxConcurrent,
                         List<NetMask> destinations, List<String> destinationText) {
        this.maxDuration = maxDuration;
        this.maxCount = maxCount;
        this.maxRateMbps = maxRateMbps;
        this.testsPerHour = testsPerHour;
        this.maxConcurrent = maxConcurrent;
        this.destinations = destinations;
        this.destinationText = destinationText;
    }

    /**
     * @param where the configuration key, for errors at start-up
     * @param destinations CIDR blocks or addresses (literals only: never looked up)
     */
    public static ClientLimits of(String where, Duration maxDuration, Integer maxCount, Double maxRateMbps, Integer testsPerHour,
                                  Integer maxConcurrent, List<String> destinations) {
        if (maxRateMbps != null && !(maxRateMbps > 0 && maxRateMbps <= 1_000_000)) {
            throw new IllegalArgumentException(where + ".max-rate-mbps must be above 0 and at most 1000000, was " + maxRateMbps);
        }
        if (maxDuration != null && (maxDuration.isNegative() || maxDuration.toMillis() < 1000)) {
            throw new IllegalArgumentException(where + ".max-duration must be at least 1 s, was " + maxDuration);
        }
        if (maxCount != null && maxCount < 1) {
            throw new IllegalArgumentException(where + ".max-count must be at least 1, was " + maxCount);
        }
        if (testsPerHour != null && (testsPerHour < 0 || testsPerHour > 1_000_000)) {
            throw new IllegalArgumentException(where + ".tests-per-hour must be 0..1000000, was " + testsPerHour);
        }
        if (maxConcurrent != null && (maxConcurrent < 0 || maxConcurrent > 10_000)) {
            throw new IllegalArgumentException(where + ".max-concurrent must be 0..10000, was " + maxConcurrent);
        }
        List<NetMask> masks = new ArrayList<>();
        List<String> text = new ArrayList<>();
        for (String d : destinations == null ? List.<String>of() : destinations) {
            String block = d.trim();
            int slash = block.indexOf('/');
            if (TestAdmission.literal(slash < 0 ? block : block.substring(0, slash)) == null) {
                throw new IllegalArgumentException(where + ".destinations: '" + d + "' is not an address or CIDR block");
            }
            masks.add(new NetMask(block));
            text.add(block);
        }
        return new ClientLimits(maxDuration, maxCount, maxRateMbps, testsPerHour == null ? 0 : testsPerHour,
                maxConcurrent == null ? 0 : maxConcurrent, List.copyOf(masks), List.copyOf(text));
    }

    /** The service's limits, narrowed to this client's: what every kind checks its parameters against. */
    public NmwsProperties.Limits narrow(NmwsProperties.Limits service) {
        if (maxDuration == null && maxCount == null && maxRateMbps == null) {
            return service;
        }
        Duration d = maxDuration == null || maxDuration.compareTo(service.maxDuration()) > 0 ? service.maxDuration() : maxDuration;
        int c = maxCount == null ? service.maxCount() : Math.min(maxCount, service.maxCount());
        double r = maxRateMbps == null ? service.maxRateMbps()
                : service.maxRateMbps() == 0 ? maxRateMbps : Math.min(maxRateMbps, service.maxRateMbps());
        return new NmwsProperties.Limits(c, d, service.maxPairsPerMessage(), service.maxMeasurementsPerMessage(),
                service.testClients(), service.testsPerClientPerMinute(), service.maxAnswerFrames(), r);
    }

    /** Tests an hour this client may start; 0 means no such limit. */
    int testsPerHour() {
        return testsPerHour;
    }

    /** Tests this client may run at once; 0 means no such limit. */
    int maxConcurrent() {
        return maxConcurrent;
    }

    /**
     * Refuses a destination outside this client's networks. A name is resolved (the client is
     * one the operator trusts to test) and every address it has must be inside: the probe may
     * use any of them.
     */
    void checkDestination(String host) throws MeasurementException {
        if (destinations.isEmpty()) {
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new MeasurementException(MeasurementException.Kind.SUBJECT, "destination '" + host + "' does not resolve");
        }
        for (InetAddress a : addresses) {
            if (destinations.stream().noneMatch(m -> m.matches(a))) {
                throw new MeasurementException(MeasurementException.Kind.DENIED, "destination " + a.getHostAddress()
                        + " is outside the networks this client may test towards (" + String.join(", ", destinationText) + ")");
            }
        }
    }
}
