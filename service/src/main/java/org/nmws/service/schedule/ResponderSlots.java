package org.nmws.service.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import org.nmws.probe.Probe;
import org.nmws.probe.SlotAnswer;
import org.nmws.probe.SlotRequest;
import org.nmws.service.measure.TestClass;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slots from the far end's nmprobe-responder, through the engine's "reserve" kind (RESERVE and
 * RELEASE on its control port, authenticated with this point's responder key as sessions are).
 * The responder rather than the far point's service grants: it is what every test to that host
 * meets, whoever runs it (another nmws point, a CLI, a point with no HTTP route to this one).
 */
final class ResponderSlots implements SlotBooker {
    private static final Logger log = LoggerFactory.getLogger(ResponderSlots.class);
    private final FarEndSessions farEnds;

    /** @param farEnds told what each responder says of its sessions */
    ResponderSlots(FarEndSessions farEnds) {
        this.farEnds = farEnds;
    }

    @Override
    public Booking book(String host, int port, Instant start, Instant latest, Duration duration, TestClass testClass,
                        String holder, boolean local) {
        SlotAnswer a = Probe.reserve(new SlotRequest(host, port, start, latest, duration,
                testClass.name().toLowerCase(Locale.ROOT), holder, local));
        farEnds.heard(host + ":" + port, a.sessions());
        return new Booking(a.granted(), a.reservation(), a.start(), a.next(), a.heldBy());
    }

    @Override
    public void release(String host, int port, long reservation) {
        try {
            Probe.release(host, port, reservation);
        } catch (RuntimeException e) {
            log.debug("release of slot {} at {}:{} failed: {}", reservation, host, port, e.toString());
        }
    }
}
