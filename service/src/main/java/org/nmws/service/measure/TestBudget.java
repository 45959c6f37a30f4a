package org.nmws.service.measure;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests one message may start, whatever asks for them (a MeasurementRequest's triggers,
 * a diagnosis that measures first, a cost refresh): each may hold a path for max-duration, so
 * a message asking for many would hold its client's connection and a server thread for that
 * long times their number. Taken as each test is about to start.
 */
public final class TestBudget {
    private final int most;
    private final AtomicInteger left;

    public TestBudget(int most) {
        this.most = most;
        this.left = new AtomicInteger(most);
    }

    /** Takes one test, or refuses it: the message has started its most. */
    void take() throws MeasurementException {
        if (left.getAndDecrement() <= 0) {
            throw new MeasurementException(MeasurementException.Kind.PARAMETER, "this message has started " + most
                    + " tests, the most one message may (nmws.limits.max-measurements-per-message); send the rest in"
                    + " further messages");
        }
    }

    /** Gives back a test that did not start after all (a busy path, a refused spec). */
    void giveBack() {
        left.incrementAndGet();
    }
}
