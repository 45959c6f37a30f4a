package org.nmws.service.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.nmws.service.archive.ArchiveTarget;
import org.nmws.service.measure.TestClass;

/**
 * A test repeated every period: which characteristic towards which destination with which
 * NMWG parameters, run by which measurement point, from start to end (open when null), each
 * repetition slipped by a random part of slip so that points do not synchronise. A schedule a
 * client made has that client as its owner: its runs carry the owner's identity and limits. Each
 * result is also sent to the schedule's archives (pScheduler's archive specs), through the outbox.
 */
public record Schedule(long id, String name, String point, String characteristic, String dst, Map<String, String> parameters,
                       Duration period, Duration slip, Instant start, Instant end, TestClass testClass, boolean enabled,
                       String owner, String ownerAddress, List<ArchiveTarget> archives, String src) {

    /** Without archives: its results stay in this point's archive only. */
    public Schedule(long id, String name, String point, String characteristic, String dst, Map<String, String> parameters,
                    Duration period, Duration slip, Instant start, Instant end, TestClass testClass, boolean enabled,
                    String owner, String ownerAddress) {
        this(id, name, point, characteristic, dst, parameters, period, slip, start, end, testClass, enabled, owner, ownerAddress,
                List.of(), null);
    }

    /** The service's own (from its configuration or the mesh file): no owner. */
    public Schedule(long id, String name, String point, String characteristic, String dst, Map<String, String> parameters,
                    Duration period, Duration slip, Instant start, Instant end, TestClass testClass, boolean enabled) {
        this(id, name, point, characteristic, dst, parameters, period, slip, start, end, testClass, enabled, null, null);
    }

    /** This schedule made by a client: "account NAME" or "address A" (Caller.owner()), from an address. */
    public Schedule ownedBy(String newOwner, String address) {
        return new Schedule(id, name, point, characteristic, dst, parameters, period, slip, start, end, testClass, enabled,
                newOwner, newOwner == null ? null : address, archives, src);
    }

    /** This schedule with its results also sent to these archives. */
    public Schedule withArchives(List<ArchiveTarget> to) {
        return new Schedule(id, name, point, characteristic, dst, parameters, period, slip, start, end, testClass, enabled,
                owner, ownerAddress, to, src);
    }

    /** This schedule's tests naming a source (one of this point's addresses), as a pSConfig task's spec does. */
    public Schedule withSrc(String source) {
        return new Schedule(id, name, point, characteristic, dst, parameters, period, slip, start, end, testClass, enabled,
                owner, ownerAddress, archives, source);
    }

    public Schedule {
        if (name == null || !name.matches("[A-Za-z0-9._:@-]{1,128}")) {
            throw new IllegalArgumentException("a schedule's name is 1..128 of [A-Za-z0-9._:@-], was '" + name + "'");
        }
        if (period == null || period.toMillis() < 1000 || period.toDays() > 366) {
            throw new IllegalArgumentException("schedule " + name + ": period must be 1 s..366 days, was " + period);
        }
        if (slip == null || slip.isNegative() || slip.compareTo(period) > 0) {
            throw new IllegalArgumentException("schedule " + name + ": slip must be 0..period, was " + slip);
        }
        if (dst == null || dst.isBlank() || dst.length() > 255) {
            throw new IllegalArgumentException("schedule " + name + ": dst is required (at most 255 characters)");
        }
        if (end != null && start != null && !end.isAfter(start)) {
            throw new IllegalArgumentException("schedule " + name + ": end " + end + " is not after start " + start);
        }
        parameters = Map.copyOf(parameters);
        archives = archives == null ? List.of() : List.copyOf(archives);
        if (src != null && (src.isBlank() || src.length() > 255)) {
            throw new IllegalArgumentException("schedule " + name + ": src is a host of this point (at most 255 characters)");
        }
        if (archives.size() > 16) {
            throw new IllegalArgumentException("schedule " + name + ": at most 16 archives, were " + archives.size());
        }
    }

    /**
     * Slot k's planned time: start + k periods + a slip that is the same for slot k after any
     * restart. The slip is drawn from the point and the schedule's name, not its database id:
     * every point numbers its schedules alike, so ids made two points pick the same instants and
     * meet at one responder (issue 24: half of a tutorial mesh's runs never started).
     */
    Instant plannedAt(long slot) {
        long seed = (point + "\n" + name).hashCode(); // String.hashCode is fixed by the language: stable across restarts
        long slipMs = slip.toMillis() == 0 ? 0 : Math.floorMod(mix(seed * 1_000_003L + slot), slip.toMillis());
        return start.plus(period.multipliedBy(slot)).plusMillis(slipMs);
    }

    /** The first slot planned at or after t. */
    long slotAt(Instant t) {
        long ms = Duration.between(start, t).toMillis();
        return ms <= 0 ? 0 : (ms + period.toMillis() - 1) / period.toMillis();
    }

    /** SplitMix64's finaliser: a well-spread slip from the slot number, with no state to keep. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
