package org.nmws.service.schedule;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many sessions each far end's responder serves at once (its --sessions), as it said in its
 * last answer to a slot request: the fit check counts a schedule's light tests against the far
 * end's own number rather than this point's setting once the far end has said it. Bounded: far
 * ends past {@link #MAX} are not remembered (the fit check then takes this point's setting).
 */
public final class FarEndSessions {
    static final int MAX = 10_000;
    private final Map<String, Integer> said = new ConcurrentHashMap<>();

    /** The responder at "host:port" serves {@code sessions} at once (0: it did not say). */
    void heard(String hostPort, int sessions) {
        if (sessions > 0 && (said.size() < MAX || said.containsKey(hostPort))) {
            said.put(hostPort, sessions);
        }
    }

    /** What the responder at "host:port" said, or null when it has not. */
    Integer of(String hostPort) {
        return said.get(hostPort);
    }
}
