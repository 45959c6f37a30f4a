package org.nmws.service.measure;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.apache.catalina.util.NetMask;

/**
 * Who may start new tests, and how often: a test puts load on the network and on the far
 * responder, so like bwctl's limits file this is the operator's to restrict, while queries of
 * stored results stay open to all. Clients are told apart by their address as the servlet
 * container sees it (behind a proxy, set server.forward-headers-strategy).
 *
 * <p>The rate is a token bucket per client address: up to {@code perMinute} tests at once,
 * refilled at {@code perMinute} a minute. Written here because per-key buckets are twenty
 * lines and no rate-limit library is on the classpath (Bucket4j would be one more dependency
 * for that); the CIDR matching is Tomcat's {@link NetMask}, already here with the container.
 */
public final class TestAdmission {
    /** The authority nmws.security grants to clients that may start tests (and to admins). */
    public static final String MEASURE_AUTHORITY = "ROLE_MEASURE";
    /** Client buckets kept; the longest idle is forgotten first (which only ever resets it to full). */
    static final int CLIENTS = 10_000;
    private static final long MINUTE_NANOS = 60_000_000_000L;
    private static final String OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
    private static final Pattern IPV4 = Pattern.compile(OCTET + "(\\." + OCTET + "){3}");
    /** Hex digits, colons and dots (an embedded IPv4 tail): Java parses these as IPv6 or fails, never resolves. */
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:][0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private final List<NetMask> allowed;
    private final int perMinute;
    private final LongSupplier nanoTime;
    private final Map<InetAddress, Bucket> buckets = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, Bucket> eldest) {
            return size() > CLIENTS;
        }
    };

    /** Whole numbers, so a refill is exact: credit grows by perMinute per nanosecond and a test costs a minute of nanoseconds. */
    private static final class Bucket {
        long credit;
        long lastNanos;
    }

    /**
     * @param allowedClients CIDR blocks (or single addresses) whose anonymous clients may start tests; empty means none
     * @param perMinute tests a client may start per minute; 0 means no limit
     * @param nanoTime the clock the buckets refill by (System::nanoTime outside tests)
     */
    public TestAdmission(List<String> allowedClients, int perMinute, LongSupplier nanoTime) {
        if (perMinute < 0 || perMinute > 100_000) {
            throw new IllegalArgumentException("nmws.limits.tests-per-client-per-minute must be 0..100000, was " + perMinute);
        }
        List<NetMask> masks = new ArrayList<>();
        for (String cidr : allowedClients) {
            String block = cidr.trim();
            int slash = block.indexOf('/');
            // NetMask would look a host name up in DNS: only address literals are taken.
            if (literal(slash < 0 ? block : block.substring(0, slash)) == null) {
                throw new IllegalArgumentException("nmws.limits.test-clients: '" + cidr + "' is not an address or CIDR block");
            }
            try {
                masks.add(new NetMask(block));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("nmws.limits.test-clients: '" + cidr + "' is not an address or CIDR block", e);
            }
        }
        this.allowed = List.copyOf(masks);
        this.perMinute = perMinute;
        this.nanoTime = nanoTime;
    }

    /** Whether an anonymous client at this address may start tests, and so cancel running ones (no rate is charged). */
    public boolean allows(String client) {
        if (client == null) {
            return true;
        }
        InetAddress address = literal(client);
        return address != null && allowed.stream().anyMatch(m -> m.matches(address));
    }

    /** An address literal as an address; null for anything else, which is never looked up in DNS. */
    static InetAddress literal(String text) {
        if (!IPV4.matcher(text).matches() && !IPV6.matcher(text).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(text); // an IPv4 or IPv6 literal: parsed, not resolved
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /**
     * Refuses a caller that may not start tests. The role was decided where the caller was
     * authenticated; the service itself always may.
     */
    public void authorize(Caller caller) throws MeasurementException {
        caller.requireMeasure();
    }

    /** Admits one new test from this caller ({@link #authorize} then {@link #charge}), or says why not. */
    public void admit(Caller caller) throws MeasurementException {
        authorize(caller);
        charge(caller.address());
    }

    /**
     * A caller no one authenticated (a service wired without its web security): it may test
     * from an address in nmws.limits.test-clients; null is the service itself.
     */
    public Caller unauthenticated(String address, String forwardedBy) {
        return address == null ? Caller.SERVICE
                : new Caller(address, null, allows(address), false, ClientLimits.NONE, forwardedBy);
    }

    /** Takes one test from the client's bucket, or says when the next is allowed. */
    public void charge(String client) throws MeasurementException {
        if (client == null || perMinute == 0) {
            return;
        }
        InetAddress address = literal(client);
        if (address == null) {
            throw new MeasurementException(MeasurementException.Kind.DENIED, "client address '" + client + "' is not an address");
        }
        long now = nanoTime.getAsLong();
        long full = perMinute * MINUTE_NANOS;
        InetAddress key = bucketKey(address);
        synchronized (buckets) {
            Bucket b = buckets.get(key);
            if (b == null) {
                b = new Bucket();
                b.credit = full;
                b.lastNanos = now;
                buckets.put(key, b);
            }
            // A minute idle refills the bucket whatever the limit; capping first keeps the product in range.
            long idle = Math.min(Math.max(0, now - b.lastNanos), MINUTE_NANOS);
            b.credit = Math.min(full, b.credit + idle * perMinute);
            b.lastNanos = now;
            if (b.credit < MINUTE_NANOS) {
                double waitS = (MINUTE_NANOS - b.credit) / (double) perMinute / 1e9;
                throw new MeasurementException(MeasurementException.Kind.RATE_LIMITED, String.format(Locale.ROOT,
                        "client %s has started its nmws.limits.tests-per-client-per-minute (%d); try again in %.1f s",
                        client, perMinute, waitS));
            }
            b.credit -= MINUTE_NANOS;
        }
    }

    /** Gives back what {@link #charge} took, for a test that did not start after all. */
    public void refund(String client) {
        if (client == null || perMinute == 0) {
            return;
        }
        InetAddress address = literal(client);
        if (address == null) {
            return;
        }
        synchronized (buckets) {
            Bucket b = buckets.get(bucketKey(address));
            if (b != null) {
                b.credit = Math.min(perMinute * MINUTE_NANOS, b.credit + MINUTE_NANOS);
            }
        }
    }

    private static final long HOUR_NANOS = 60 * MINUTE_NANOS;
    private final Map<String, Bucket> hourly = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
            return size() > CLIENTS;
        }
    };
    private final Map<String, Integer> concurrent = new java.util.HashMap<>();

    /**
     * Admits one test about to start: the address's rate, then the client's tests an hour and
     * tests at once. The slot is closed when the test ends (or refunded if it never started).
     */
    public Slot begin(Caller caller) throws MeasurementException {
        String client = caller.address();
        charge(client);
        ClientLimits limits = caller.limits();
        if (client == null || limits == ClientLimits.NONE) {
            return new Slot(client, null, limits);
        }
        String key = caller.owner();
        int perHour = limits.testsPerHour();
        if (perHour > 0) {
            long now = nanoTime.getAsLong();
            synchronized (hourly) {
                Bucket b = hourly.computeIfAbsent(key, k -> {
                    Bucket n = new Bucket();
                    n.credit = perHour * HOUR_NANOS;
                    n.lastNanos = now;
                    return n;
                });
                long idle = Math.min(Math.max(0, now - b.lastNanos), HOUR_NANOS);
                b.credit = Math.min(perHour * HOUR_NANOS, b.credit + idle * perHour);
                b.lastNanos = now;
                if (b.credit < HOUR_NANOS) {
                    refund(client);
                    throw new MeasurementException(MeasurementException.Kind.RATE_LIMITED, String.format(Locale.ROOT,
                            "%s has started its %d tests an hour; try again in %.0f s", key, perHour,
                            Math.ceil((HOUR_NANOS - b.credit) / (double) perHour / 1e9)));
                }
                b.credit -= HOUR_NANOS;
            }
        }
        int most = limits.maxConcurrent();
        if (most > 0) {
            synchronized (concurrent) {
                int now = concurrent.getOrDefault(key, 0);
                if (now >= most) {
                    giveHour(key, perHour);
                    refund(client);
                    throw new MeasurementException(MeasurementException.Kind.RATE_LIMITED,
                            key + " already runs its " + most + " tests at once; retry when one has ended");
                }
                concurrent.put(key, now + 1);
            }
        }
        return new Slot(client, key, limits);
    }

    private void giveHour(String key, int perHour) {
        if (perHour > 0) {
            synchronized (hourly) {
                Bucket b = hourly.get(key);
                if (b != null) {
                    b.credit = Math.min(perHour * HOUR_NANOS, b.credit + HOUR_NANOS);
                }
            }
        }
    }

    /** One admitted test: closed when it ends, refunded too when it never started. */
    public final class Slot implements AutoCloseable {
        private final String client;
        private final String key;
        private final ClientLimits limits;
        private boolean closed;

        private Slot(String client, String key, ClientLimits limits) {
            this.client = client;
            this.key = key;
            this.limits = limits;
        }

        /** Gives back the rates this test was charged: it did not start after all. */
        public void refund() {
            TestAdmission.this.refund(client);
            if (key != null) {
                giveHour(key, limits.testsPerHour());
            }
        }

        @Override
        public void close() {
            if (closed || key == null || limits.maxConcurrent() == 0) {
                return;
            }
            closed = true;
            synchronized (concurrent) {
                concurrent.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
            }
        }
    }

    /**
     * The bucket an address draws from: its own for IPv4, its /64 for IPv6, since one IPv6
     * host is handed a whole /64 and could otherwise take a fresh bucket per address.
     */
    static InetAddress bucketKey(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        java.util.Arrays.fill(b, 8, 16, (byte) 0);
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an IPv6 address", e);
        }
    }
}
