package org.nmws.service.kind;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.nmws.service.observation.Params;

/**
 * The NMWG parameter names each kind reads, and the check that refuses any other by name:
 * a parameter a test would not honour is an error (error.common.parameter), never dropped.
 * Issue 20: bwctl's role=receiver, owamp's direction and portRange were dropped, and the
 * test ran as if they had not been sent.
 */
final class ParameterNames {
    /**
     * Read outside the kinds or carried by perfSONAR clients without meaning for a test:
     * raw (per-frame datums in the answer, where the kind keeps them), rawForm (datums or packed
     * columns, nmwg/FrameColumns) and perfSONAR's
     * message-level supportedEventType, keepalive and eventNameSpaceSynchronization.
     */
    static final Set<String> EVERY_KIND = Set.of("raw", "rawForm", "supportedEventType", "keepalive", "eventNameSpaceSynchronization");

    /** Values of direction that say this host sends (owping's -t, "to"), as every test here does. */
    private static final Set<String> FORWARD = Set.of("to", "forward", "send", "out");

    /** Names no kind honours, with why. */
    private static final Map<String, String> NOT_HONOURED = Map.of(
            "portRange", "the far end's responder picks the data ports (parameter port names its control port)");

    private ParameterNames() {
    }

    /** @throws IllegalArgumentException naming the first parameter the test does not read */
    static void check(Map<String, String> p, String test, Set<String> reads) {
        for (String name : p.keySet()) {
            if (EVERY_KIND.contains(name) || reads.contains(name)) {
                continue;
            }
            String why = NOT_HONOURED.get(name);
            if (why != null) {
                throw new IllegalArgumentException("parameter " + name + " cannot be honoured: " + why);
            }
            throw new IllegalArgumentException("parameter " + Params.echo(name) + " is not one " + test
                    + " reads; it reads " + String.join(", ", new TreeSet<>(reads)));
        }
    }

    /**
     * role=sender and a forward direction are what every test here does (this host sends to the
     * destination); the engine cannot make the far end send, so a receiver role or a reverse
     * direction is refused rather than measured the other way.
     */
    static void sendsFromHere(Map<String, String> p) {
        String role = p.get("role");
        if (role != null && !role.trim().equalsIgnoreCase("sender")) {
            throw new IllegalArgumentException("parameter role is '" + Params.echo(role.trim()) + "': this host can only be"
                    + " the sender (the engine cannot make the far end send); ask the far end to measure towards this host");
        }
        String direction = p.get("direction");
        if (direction != null && !FORWARD.contains(direction.trim().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("parameter direction is '" + Params.echo(direction.trim()) + "': this host"
                    + " can only send to the destination (to, forward); the engine cannot make the far end send");
        }
    }

    /** protocol, where a kind runs over one only: absent or that one. */
    static void protocol(Map<String, String> p, String only, String hint) {
        String protocol = p.get("protocol");
        if (protocol != null && !protocol.trim().equalsIgnoreCase(only)) {
            throw new IllegalArgumentException("parameter protocol is '" + Params.echo(protocol.trim()) + "': this test is "
                    + only + hint);
        }
    }
}
