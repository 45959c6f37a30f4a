package org.nmws.service.measure;

/** The host clock as the kernel reports it: source now, synchronisation and error from the probe engine. */
final class ClockState {
    private ClockState() {
    }

    static Environment.Clock read() {
        return new Environment.Clock(HostEnvironment.clockSource(), null, null, null, null);
    }
}
