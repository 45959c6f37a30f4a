package org.nmws.service.measure;

import org.nmws.probe.ProbeControl;
import org.nmws.service.observation.PathSubject;

/**
 * What a kind runs its test through: the measurement service's admission, path lock,
 * running-tests entry and watchdog, and the facts every observation records.
 */
public interface TestRunner {

    /**
     * Runs a probe call holding the subject's path: charged to the client, listed with its
     * progress, cancelled when it overruns. Engine failures become measurement errors by
     * their reason (a busy responder is BUSY, an unknown host SUBJECT, ...); a cancelled
     * call is an error and nothing is kept.
     */
    <T> T probe(PathSubject subject, ProbeCall<T> call) throws MeasurementException;

    /**
     * Runs a passive observation (nothing sent, so no path is held) of 'target', charged to
     * the client and listed with its progress.
     */
    <T> T passive(String target, PassiveCall<T> call) throws MeasurementException;

    /**
     * Whether the destination runs an nmws responder on the port (0: the configured one): the host has
     * agreed to be measured. Tests that need none are bounded hard towards one that has not.
     */
    boolean responderAgrees(PathSubject subject, int port);

    /** The engine tests run on (native, or a fake in unit tests). */
    /**
     * The class the test runs in. A test that is not exclusive asks the far responder for a shared
     * session: one serving several at once ({@code --sessions}) runs it beside other light tests.
     */
    default TestClass testClass() {
        return TestClass.EXCLUSIVE;
    }

    Engine engine();

    /** This host's description (kernel, CPU, interfaces, clock). */
    HostEnvironment host();

    /** The name observations are tagged with. */
    String measurementPoint();

    /** A probe call and whether it was cancelled before its end. */
    record Outcome<T>(T result, boolean cancelled) {
    }

    /** The test itself, given the control to report progress and watch for a cancel. */
    interface ProbeCall<T> {
        Outcome<T> run(ProbeControl control);
    }

    /** A passive observation, given its running-tests entry for progress and cancel. */
    interface PassiveCall<T> {
        T run(RunningTests.Entry entry) throws MeasurementException;
    }
}
