package org.nmws.service.schedule;

import java.time.Duration;
import java.time.Instant;
import org.nmws.service.measure.TestClass;

/**
 * Agrees a run's time with its far end before the run starts, as pScheduler's participants
 * agree a slot: the far end's responder keeps a calendar and grants the earliest free start in
 * a window, or says when it is free next and who holds the time (issue 24). The grant is held at
 * the far end, not here: so points that know nothing of each other, and clients that are not
 * nmws points, are kept apart by the one party they all meet.
 */
public interface SlotBooker {

    /**
     * A granted slot or a refusal.
     *
     * @param granted whether the far end holds the slot for this point
     * @param reservation the far end's id of it (granted)
     * @param start the granted start (granted), else null
     * @param next refused: the earliest start the far end would grant now
     * @param heldBy refused: who holds the wanted time, as the holder named itself
     */
    record Booking(boolean granted, long reservation, Instant start, Instant next, String heldBy) {
        /** What the responder names an on-demand session's hold (nmp_calendar.h). */
        static final String LIVE_SESSION = "a session in progress";

        /**
         * Refused for a session in progress that holds no reservation: its "free from" is the
         * session's longest expected end, and it usually ends sooner, so asking again later can
         * succeed where a reservation's refusal cannot.
         */
        public boolean heldByLiveSession() {
            return !granted && LIVE_SESSION.equals(heldBy);
        }
    }

    /**
     * Asks host:port for duration from the earliest free start in [start, latest]; with
     * {@code local}, a hold on this host's own responder for a test this host runs (an exclusive
     * test's own end, so that no test towards this host meets it).
     *
     * @throws RuntimeException when the far end cannot be asked (unreachable, no calendar: an
     *         older responder, a refused key); the run then goes ahead unagreed, as before
     */
    Booking book(String host, int port, Instant start, Instant latest, Duration duration, TestClass testClass,
                 String holder, boolean local);

    /** Gives a slot back that the run will not use; failures are only logged. */
    void release(String host, int port, long reservation);
}
