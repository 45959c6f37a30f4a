package org.nmws.service.perfsonar;

import java.util.Locale;
import java.util.Optional;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;

/**
 * The pScheduler test types nmws results can be written as, and which nmws test each comes
 * from: one-way delay and loss (the UDP stream) as {@code latency}, round trips (nmws's own and
 * STAMP) as {@code rtt}, achievable bandwidth (TCP, and a UDP stream asked for as such) as
 * {@code throughput}, the hop list as {@code trace}. nmws has no continuous background stream,
 * so it writes no {@code latencybg}; the other tests (latency scan, capacity, available
 * bandwidth, utilization, per-hop capacity) have no pScheduler form.
 */
public enum PschedulerType {
    LATENCY("latency"),
    RTT("rtt"),
    THROUGHPUT("throughput"),
    TRACE("trace");

    private final String name;

    PschedulerType(String name) {
        this.name = name;
    }

    /** The test type's name in pScheduler (test.type, the data stream's suffix). */
    public String typeName() {
        return name;
    }

    /** The form a stored result takes by default: its own test's type, if it has one. */
    public static Optional<PschedulerType> of(ProbeTest test) {
        return switch (test) {
            case UDP_STREAM -> Optional.of(LATENCY);
            case ROUND_TRIP, STAMP -> Optional.of(RTT);
            case TCP_STREAM -> Optional.of(THROUGHPUT);
            case HOP_LIST -> Optional.of(TRACE);
            default -> Optional.empty();
        };
    }

    /** Whether a result of this nmws test can be written as this type (a UDP stream as latency or throughput). */
    public boolean fits(ProbeTest test) {
        return of(test).map(t -> t == this).orElse(false) || (this == THROUGHPUT && test == ProbeTest.UDP_STREAM);
    }

    /** A type by its pScheduler name; empty when pScheduler has no such type nmws writes. */
    public static Optional<PschedulerType> named(String name) {
        for (PschedulerType t : values()) {
            if (t.name.equals(name == null ? "" : name.trim().toLowerCase(Locale.ROOT))) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    /** A result that has no form of the type asked for; its message says why, for the client. */
    public static final class NoForm extends IllegalArgumentException {
        public NoForm(String message) {
            super(message);
        }
    }

    /** The default type of a result, or NoForm naming its test. */
    public static PschedulerType required(Observation o) {
        return of(o.test()).orElseThrow(() -> new NoForm("result " + o.id() + " is a " + o.test().key()
                + " test, which has no pScheduler form (pScheduler writes latency, rtt, throughput and trace)"));
    }
}
